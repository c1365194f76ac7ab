// The Java probe of call sites (inject_java_test.cc).
//
//   java JavaProbe DIR TWIN WARM: calls every write of SpillA and SpillB WARM times into
//   the directory TWIN (out of scope: to warm the JIT up), then once per label into DIR,
//   printing "LABEL ok" or "LABEL failed CLASS.METHOD:LINE" (the probe's own frame that
//   the IOException passed through), one line per label in the order of the writes.
//
//   java JavaProbe bench FILE N: N one-byte writes to FILE from one call site through
//   java.io, then N through a java.nio FileChannel (a deeper stack); prints
//   "io_ns_per_write X nio_ns_per_write Y".
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

public final class JavaProbe {
  private static final String[] LABELS = {
    "header1", "header2", "body", "nio", "pairFirst", "pairSecond"
  };

  private JavaProbe() {}

  private static void call(String label, File dir) throws IOException {
    switch (label) {
      case "header1":
      case "header2":
        SpillA.header(new File(dir, "header"));
        break;
      case "body":
        SpillA.body(new File(dir, "body"));
        break;
      case "nio":
        SpillB.nio(dir.toPath().resolve("nio"));
        break;
      case "pairFirst":
        SpillB.pair(dir.toPath(), false);
        break;
      default:
        SpillB.pair(dir.toPath(), true);
        break;
    }
  }

  // The frame of SpillA or SpillB that `e` passed through.
  private static String failedIn(IOException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().startsWith("Spill")) {
        return frame.getClassName() + "." + frame.getMethodName() + ":" + frame.getLineNumber();
      }
    }
    return "unknown";
  }

  private static void bench(String file, int n) throws IOException {
    long io;
    try (FileOutputStream out = new FileOutputStream(file)) {
      final long start = System.nanoTime();
      for (int i = 0; i < n; ++i) {
        out.write('x');
      }
      io = (System.nanoTime() - start) / n;
    }
    long nio;
    try (FileChannel channel = new RandomAccessFile(file, "rw").getChannel()) {
      final ByteBuffer one = ByteBuffer.allocateDirect(1);
      final long start = System.nanoTime();
      for (int i = 0; i < n; ++i) {
        one.clear();
        channel.write(one);
      }
      nio = (System.nanoTime() - start) / n;
    }
    System.out.println("io_ns_per_write " + io + " nio_ns_per_write " + nio);
  }

  public static void main(String[] args) throws IOException {
    if (args[0].equals("bench")) {
      bench(args[1], Integer.parseInt(args[2]));
      return;
    }
    final File dir = new File(args[0]);
    final File twin = new File(args[1]);
    final int warm = Integer.parseInt(args[2]);
    for (int i = 0; i < warm; ++i) {
      for (String label : LABELS) {
        call(label, twin);
      }
    }
    for (String label : LABELS) {
      String outcome = "ok";
      try {
        call(label, dir);
      } catch (IOException e) {
        outcome = "failed " + failedIn(e);
      }
      System.out.println(label + " " + outcome);
    }
  }
}
