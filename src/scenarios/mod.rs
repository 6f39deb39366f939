/*!
Scenario suites: finding them on disk, parsing them and validating them.

A suite is read once into plain [`Scenario`] values. Everything that can be
checked without opening a response file is checked here, and every problem
that makes the suite itself unusable (a YAML syntax error, a wrong type, an
unknown key, a missing `task` or `id`, a response path that leaves the suite
root, a suite file that leads outside the root through a symlink, two
scenarios with the same id) is a [`SuiteError`] that points into the
file (`path:line:column`) and says what to do. One load collects as many of
those errors as it can, so a user fixes a suite in one pass, not one error at
a time.

What this module deliberately does not do:

- it never opens a response file: the `verdict` stage does, so that a missing
  or broken response spoils its own scenario (MALFORMED) and not the run. It
  only checks each one without opening it (inside the canonical suite root,
  a regular file, within `max_response_bytes`), so that no later stage ever
  reads a response that leads outside the root or never ends;
- a problem *inside an assertion* (unknown type, empty value, invalid regex)
  is not a load error either: the assertion is kept as
  [`ParsedAssertion::Invalid`] with its reason and location, and the verdict
  of that scenario is MALFORMED (scenarios.md §3-4);
- it knows nothing of retrieval, decisions or reports.

Two layouts are read (scenarios.md §1-2): native YAML suite files (`*.yaml`,
`*.yml`, found by walking a folder recursively in sorted path order) and
Mneme benchmark folders (a folder holding `scenario.json`).

The files follow those seams, each using only the ones listed before it:

- `text`: typo suggestions and one-line messages;
- `node`: a YAML tree that remembers where every node is;
- `assertions`: what an assertion is, and how one entry is validated;
- `scenario`: the loaded suite, its scenarios and the responses they name;
- `error`: [`SuiteError`], worded;
- `root`: the suite root rule and bounded reads, the one place a file the
  suite names is opened (also by `verdict`, for responses): it must resolve
  inside the canonical root, be a regular file and fit its cap;
- `read`: [`SuiteLimits`], a file's text (UTF-8, or the place of the first
  bad byte), and YAML read within [`YamlLimits`] sized to the file, its
  errors reworded;
- `split`: a big suite file cut into pieces of whole entries, parsed at the
  same time;
- `native`: native YAML suite files;
- `mneme`: Mneme benchmark folders;
- `load`: walking the suite roots and loading their files in parallel.

The types are re-exported here: the rest of the crate names them as
`crate::scenarios::Scenario` and never reaches into a file.
*/

mod assertions;
mod error;
mod load;
mod memo;
mod mneme;
mod native;
mod node;
mod read;
mod scenario;
mod split;
pub(crate) use read::syntax_place;
mod root;
mod text;

// Public: the types that `Suite::load`, a `Scenario`'s fields, `crate::error`
// and `crate::verdict` hand out. Everything else is private to its file, or
// `pub(super)` / `pub(crate)` where a sibling needs it.
pub use assertions::{Assertion, AssertionKind, AssertionSpec, Matcher, ParsedAssertion, Pattern, Severity};
pub use error::SuiteError;
pub use load::{load_root, load_root_with};
#[doc(hidden)]
pub use native::pieces_read_as_whole;
pub use read::{SuiteLimits, YamlLimits};
pub(crate) use root::{read_inside, Cap, Refusal};
pub use scenario::{
    LoadedRoot, ReadDigest, ResponseFolder, ResponseFormat, ResponseRef, Review, Scenario, ScenarioType,
    SourceLocation, Suite, SuiteFormat,
};
