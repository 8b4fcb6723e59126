//! Py_3_14 and the other interpreter flags for the binding, and each
//! protocol's vocabulary as constants: `python/agentcodec/<name>/vocabulary.txt`,
//! in the protocol's package, holds its tables (event types, finish reasons,
//! error codes), which the pure backend reads too, so that both backends know
//! one list.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    // Py_3_14, Py_GIL_DISABLED, PyPy, GraalPy, Py_LIMITED_API: what
    // `rust/python/json.rs` checks before reading an object's storage.
    #[cfg(feature = "python")]
    pyo3_build_config::use_pyo3_cfgs();
    vocabularies();
}

/// `$OUT_DIR/vocabulary/<name>.rs` for every `<name>/vocabulary.txt`: a `pub
/// const NAME: [&str; N]` a table, its description as the doc comment.
fn vocabularies() {
    let packages = Path::new("python/agentcodec");
    // A new protocol is listed in lib.rs, so a change there looks again for
    // packages with a vocabulary. (Not the packages' folders: cargo watches a
    // folder's whole tree, and every Python edit would rebuild the crate.)
    println!("cargo:rerun-if-changed=rust/lib.rs");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("vocabulary");
    fs::create_dir_all(&out).expect("the build's output directory can be written");
    let mut entries: Vec<_> = fs::read_dir(packages)
        .expect("python/agentcodec is in the source tree")
        .map(|entry| {
            entry
                .expect("a readable directory entry")
                .path()
                .join("vocabulary.txt")
        })
        .filter(|path| path.is_file())
        .collect();
    entries.sort();
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).expect("a vocabulary file is UTF-8");
        let code = constants(&path, &text);
        let package = path
            .parent()
            .and_then(Path::file_name)
            .expect("a package's folder");
        let name = package.to_string_lossy();
        fs::write(out.join(format!("{name}.rs")), code).expect("the constants can be written");
    }
}

fn constants(path: &Path, text: &str) -> String {
    let mut tables: Vec<(String, String, Vec<String>)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        let at = || format!("{} line {}", path.display(), number + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let (name, doc) = rest
                .split_once(']')
                .unwrap_or_else(|| panic!("{}: `[NAME] what it is`", at()));
            // [A-Z][A-Z0-9_]*, as agentcodec._vocabulary.parse checks it.
            let valid = name.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            assert!(valid, "{}: {name:?} is not an upper-case name", at());
            assert!(
                tables.iter().all(|(seen, _, _)| seen != name),
                "{}: a second table {name}",
                at()
            );
            tables.push((name.to_owned(), doc.trim().to_owned(), Vec::new()));
        } else {
            let (_, _, words) = tables
                .last_mut()
                .unwrap_or_else(|| panic!("{}: a word before any table", at()));
            assert!(
                !line.contains(['"', '\\']),
                "{}: a word holds a quote or a backslash",
                at()
            );
            words.push(line.to_owned());
        }
    }
    let mut code = format!("// Made by build.rs from {}.\n", path.display());
    for (name, doc, words) in &tables {
        let list: Vec<String> = words.iter().map(|word| format!("{word:?}")).collect();
        writeln!(code, "/// {doc}").unwrap();
        writeln!(
            code,
            "pub const {name}: [&str; {}] = [{}];",
            words.len(),
            list.join(", ")
        )
        .unwrap();
    }
    // The tables by name, as `agentcodec._vocabulary.tables` gives them to
    // the pure backend: what another protocol's codec reads of this one
    // (through its registry descriptor) without naming it.
    code.push_str(
        "/// The table of that name, as the vocabulary file heads it.\n\
         pub fn table(name: &str) -> Option<&'static [&'static str]> {\n    match name {\n",
    );
    for (name, _, _) in &tables {
        writeln!(code, "        {name:?} => Some(&{name}),").unwrap();
    }
    code.push_str("        _ => None,\n    }\n}\n");
    code
}
