// Writes with java.nio (Files.write: libnio.so's JNI methods), from two methods and, in
// one of them, two lines.
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

final class SpillB {
  private static final byte[] DATA = "data\n".getBytes();

  private SpillB() {}

  static void nio(Path file) throws IOException {
    Files.write(file, DATA); // site:nio
  }

  static void pair(Path dir, boolean second) throws IOException {
    if (!second) {
      Files.write(dir.resolve("first"), DATA); // site:pairFirst
    } else {
      Files.write(dir.resolve("second"), DATA); // site:pairSecond
    }
  }
}
