// rust_spill DIR: spills the way DataFusion does (a tempdir_in the given directory, a
// tempfile_in it, write_all, read back, a copy) and relies on RAII to remove both.
// Prints the sizes it wrote and read back; exits 1 on the first error.
use std::io::{Read, Seek, SeekFrom, Write};

fn spill(dir: &str) -> std::io::Result<(u64, usize)> {
    let spill_dir = tempfile::Builder::new().prefix("datafusion-").tempdir_in(dir)?;
    let mut file = tempfile::Builder::new().prefix(".tmp").tempfile_in(spill_dir.path())?;
    file.write_all(&vec![b'x'; 100_000])?;
    file.flush()?;
    let size = std::fs::metadata(file.path())?.len();
    file.as_file_mut().seek(SeekFrom::Start(0))?;
    let mut back = Vec::new();
    file.as_file_mut().read_to_end(&mut back)?;
    std::fs::copy(file.path(), spill_dir.path().join("copy"))?;
    std::fs::remove_file(spill_dir.path().join("copy"))?;
    Ok((size, back.len()))
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: rust_spill DIR");
    match spill(&dir) {
        Ok((size, read)) => println!("{} {}", size, read),
        Err(e) => {
            println!("error {:?}", e.raw_os_error());
            std::process::exit(1);
        }
    }
}
