// Writes with java.io (FileOutputStream: libjava.so's JNI methods), from two methods.
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;

final class SpillA {
  private static final byte[] HEADER = "header\n".getBytes();
  private static final byte[] BODY = "body\n".getBytes();

  private SpillA() {}

  static void header(File file) throws IOException {
    try (FileOutputStream out = new FileOutputStream(file)) {
      out.write(HEADER); // site:header
    }
  }

  static void body(File file) throws IOException {
    try (FileOutputStream out = new FileOutputStream(file, true)) {
      out.write(BODY); // site:body
    }
  }
}
