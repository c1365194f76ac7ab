// Apache Derby sorting through temp files (engines/derby/sweep.sh), over JDBC, embedded.
//
//   java Spill create DB ROWS: creates the database DB with a table t of ROWS rows (k, v),
//   v a 100-character string in an order unlike k's.
//   java Spill sort TEMPLATE DBS TEMP SORT_BUFFER_MAX: boots a copy of TEMPLATE,
//   DBS/NAME/db (NAME: TEMP's last component; the copy is made unless it is there, so that
//   a run started again in the same TEMP boots the database the killed run had booted; an
//   instance started while another runs in the same TEMP, as the sweep's neighbours are,
//   takes DBS/NAME-PID instead, so that the two share TEMP alone),
//   with derby.storage.tempDirectory=TEMP and derby.storage.sortBufferMax=SORT_BUFFER_MAX,
//   so that `SELECT k, v FROM t ORDER BY v DESC` spills its merge runs into TEMP; prints
//   "rows N crc32 X" over the rows in their order. It shuts the database down and removes
//   DBS/NAME whether the query failed or not. Derby's log (derby.log) goes to DBS/NAME
//   too, out of TEMP.
//
// An SQLException is printed on stderr with its SQLState chain and the exit status is 1.
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.CRC32;

public final class Spill {
  private Spill() {}

  private static void create(Path db, int rows) throws SQLException {
    System.setProperty("derby.system.home", db.getParent().toString());
    try (Connection c = DriverManager.getConnection("jdbc:derby:" + db + ";create=true")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (k INT NOT NULL, v VARCHAR(100) NOT NULL)");
      }
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
        for (int i = 1; i <= rows; ++i) {
          insert.setInt(1, i);
          insert.setString(2, String.format("%096d%04d", (long) i * 7919 % rows, i % 10000));
          insert.addBatch();
          if (i % 1000 == 0) insert.executeBatch();
        }
        insert.executeBatch();
      }
      c.commit();
    }
    shutdown(db);
  }

  private static void shutdown(Path db) {
    try {
      DriverManager.getConnection("jdbc:derby:" + db + ";shutdown=true").close();
    } catch (SQLException expected) {
      // Derby reports a database shut down as SQLState 08006; a failed shutdown is said
      // on stderr, for the run's error is the query's.
      if (!"08006".equals(expected.getSQLState())) {
        System.err.println(
            "shutdown: SQLState " + expected.getSQLState() + ": " + expected.getMessage());
      }
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  private static void removeAll(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  private static void sort(Path template, Path dbs, Path temp, String sortBufferMax)
      throws IOException, SQLException {
    String name = temp.getFileName().toString();
    // DBS/NAME.lock is held until this process exits (the system drops it when the process
    // is killed): held by another, it says that an instance runs in TEMP now.
    try (FileChannel lock =
        FileChannel.open(
            dbs.resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      if (lock.tryLock() == null) name += "-" + ProcessHandle.current().pid();
      sortIn(template, dbs.resolve(name), temp, sortBufferMax);
    }
  }

  private static void sortIn(Path template, Path home, Path temp, String sortBufferMax)
      throws IOException, SQLException {
    Path db = home.resolve("db");
    if (!Files.exists(db)) copy(template, db);
    System.setProperty("derby.system.home", home.toString());
    System.setProperty("derby.storage.tempDirectory", temp.toString());
    System.setProperty("derby.storage.sortBufferMax", sortBufferMax);
    CRC32 crc = new CRC32();
    long rows = 0;
    try (Connection c = DriverManager.getConnection("jdbc:derby:" + db);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT k, v FROM t ORDER BY v DESC")) {
      while (r.next()) {
        crc.update((r.getInt(1) + " " + r.getString(2) + "\n").getBytes(StandardCharsets.UTF_8));
        ++rows;
      }
    } finally {
      // Also after a failed query, as an application closing its database would: what
      // Derby leaves in TEMP then is Derby's, not this program's.
      shutdown(db);
      removeAll(home);
    }
    System.out.printf("rows %d crc32 %08x%n", rows, crc.getValue());
  }

  public static void main(String[] args) throws IOException {
    try {
      if (args.length == 3 && args[0].equals("create")) {
        create(Paths.get(args[1]).toAbsolutePath(), Integer.parseInt(args[2]));
      } else if (args.length == 5 && args[0].equals("sort")) {
        sort(Paths.get(args[1]).toAbsolutePath(), Paths.get(args[2]).toAbsolutePath(),
            Paths.get(args[3]).toAbsolutePath(), args[4]);
      } else {
        System.err.println(
            "usage: Spill create DB ROWS | Spill sort TEMPLATE DBS TEMP SORT_BUFFER_MAX");
        System.exit(2);
      }
    } catch (SQLException e) {
      for (SQLException x = e; x != null; x = x.getNextException()) {
        System.err.println("SQLState " + x.getSQLState() + ": " + x.getMessage());
      }
      Throwable cause = e.getCause();
      while (cause != null) {
        System.err.println("caused by: " + cause);
        cause = cause.getCause();
      }
      System.exit(1);
    }
  }
}
