//! Encodes Mneme benchmark folders as `mneme_folder` seeds (the bytes that
//! `arbitrary` splits back into the folder's files; see `MnemeFolder`).
//!
//! `cargo run --example encode_mneme_folder -- OUT_DIR FOLDER...` writes
//! `OUT_DIR/<folder name>` for each folder. `fuzz/make_seeds.sh` runs it.

use std::fs;
use std::path::Path;

use mneme_gate_fuzz::MnemeFolder;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: encode_mneme_folder OUT_DIR FOLDER...");
    for folder in args {
        let dir = Path::new(&folder);
        let read = |name: &str| fs::read(dir.join(name)).ok();
        let scenario = read("scenario.json").unwrap_or_else(|| panic!("{folder} has no scenario.json"));
        let (query, without_json, without_txt, with_json, with_txt) = (
            read("query.txt"),
            read("without_mneme.json"),
            read("without_mneme.txt"),
            read("with_mneme.json"),
            read("with_mneme.txt"),
        );
        let input = MnemeFolder {
            // The first expected id counts as missed.
            missed: 1,
            query: query.as_deref(),
            without_json: without_json.as_deref(),
            without_txt: without_txt.as_deref(),
            with_json: with_json.as_deref(),
            with_txt: with_txt.as_deref(),
            scenario: &scenario,
        };
        let name = dir.file_name().expect("a folder name").to_string_lossy().into_owned();
        let target = Path::new(&out).join(&name);
        fs::write(&target, input.encode()).expect("write the seed");
        println!("{}", target.display());
    }
}
