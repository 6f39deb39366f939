/*!
mneme-gate's development tools, kept out of the shipped binary. The library
holds [`synth`] (seeded corpora and suites for benchmarks and tests); the
`mneme-gate-dev` binary offers it as `synth`, beside `floor` (the
benchmark's parse-only floor), `schema` (the JSON Schema of the report,
from `mneme-gate` built with its `schema` feature) and `render-md`
([`render_md`]: Markdown as GitHub shows it, to look at a report).
*/

pub mod render_md;
pub mod synth;
