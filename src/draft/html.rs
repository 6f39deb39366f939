/*!
The review page of a draft (`draft --html`): one self-contained HTML file,
no script, no external resource, every string from the repository escaped,
that shows each drafted scenario with its commit's subject, the files it
changed, the evidence, the proposed decisions with their titles and the
retriever's current top k, so that a reviewer decides quickly.
*/

use std::fmt::Write as _;

use super::{Draft, Drafted};

/// The most changed files listed per scenario (the rest are counted).
const FILES_SHOWN: usize = 40;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem 1.5rem;color:#1b1f24;background:#fff}\
h1{font-size:1.4rem}h2{font-size:1.05rem;margin:0 0 .4rem}\
.s{border:1px solid #d0d7de;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}\
.control{background:#f6f8fa}\
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}\
.meta{color:#57606a}.strong{color:#1a7f37;font-weight:600}\
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}\
th{background:#f6f8fa}.cols{display:grid;grid-template-columns:1fr 1fr;gap:1rem}\
ul{margin:.2rem 0;padding-left:1.2rem}.files li{font-family:ui-monospace,monospace;font-size:12px}";

/// The page.
pub fn render(draft: &Draft) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    out.push_str("<title>mneme-gate draft: review</title>\n");
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    let governed = draft.scenarios.iter().filter(|s| s.control.is_none()).count();
    let _ = writeln!(
        out,
        "<h1>Drafted scenarios to review</h1>\n<p class=\"meta\">{} scenario(s) ({} from changes a decision plausibly governs, {} control(s)) \
         from {} first-parent commit(s) of HEAD <code>{}</code>. For each one: check the task, the file and the \
         proposed decisions against the commit, fix the suite file, then delete its <code>review: pending</code> line.</p>",
        draft.scenarios.len(),
        governed,
        draft.scenarios.len() - governed,
        draft.examined,
        esc(&draft.head)
    );
    for s in &draft.scenarios {
        scenario(&mut out, s, draft.k);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn scenario(out: &mut String, s: &Drafted, k: usize) {
    let class = if s.control.is_some() { "s control" } else { "s" };
    let _ = writeln!(out, "<section class=\"{class}\" id=\"{}\">", esc(&s.id));
    let _ = writeln!(out, "<h2>{}</h2>", esc(&s.commit.subject));
    let _ = writeln!(
        out,
        "<p class=\"meta\"><code>{}</code> · commit <code>{}</code>{}</p>",
        esc(&s.id),
        esc(&s.commit.hash),
        if s.commit.merge { " · merge" } else { "" }
    );
    let _ = writeln!(out, "<p>Task: <strong>{}</strong></p>", esc(&s.task));
    match &s.file {
        Some(f) => {
            let _ = writeln!(out, "<p>File: <code>{}</code></p>", esc(f));
        }
        None => out.push_str("<p>File: <em>none</em></p>\n"),
    }
    out.push_str("<div class=\"cols\">\n<div>\n");
    match s.control {
        Some(kind) => {
            let _ = writeln!(
                out,
                "<p><strong>Control</strong>: {}; no decision governs it, <code>expect: []</code>.</p>",
                esc(kind.word())
            );
        }
        None => {
            out.push_str("<table>\n<tr><th>proposed</th><th>title</th><th>evidence</th></tr>\n");
            for p in &s.expect {
                let evidence: Vec<String> = p
                    .evidence
                    .iter()
                    .map(|e| {
                        let class = if e.is_strong() { " class=\"strong\"" } else { "" };
                        format!("<li{class}>{}</li>", esc(&e.words()))
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "<tr><td><code>{}</code></td><td>{}</td><td><ul>{}</ul></td></tr>",
                    esc(&p.id),
                    esc(&p.title),
                    evidence.join("")
                );
            }
            out.push_str("</table>\n");
        }
    }
    for note in &s.notes {
        let _ = writeln!(out, "<p class=\"meta\">Not proposed: {}</p>", esc(note));
    }
    let _ = writeln!(out, "<p>The retriever today (top {k}, not copied into expect):</p>");
    if s.top.is_empty() {
        out.push_str("<p class=\"meta\">nothing retrieved</p>\n");
    } else {
        out.push_str("<table>\n<tr><th>#</th><th>id</th><th>title</th><th>score</th></tr>\n");
        for (i, r) in s.top.iter().enumerate() {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{:.3}</td></tr>",
                i + 1,
                esc(&r.id),
                esc(&r.title),
                r.score.as_f64()
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("</div>\n<div>\n");
    let total = s.commit.files.len() + s.commit.more_files;
    let _ = writeln!(out, "<p>Changed files ({total}):</p>\n<ul class=\"files\">");
    for f in s.commit.files.iter().take(FILES_SHOWN) {
        let _ = writeln!(out, "<li>{} {}</li>", esc(f.status.word()), esc(&f.path));
    }
    if total > FILES_SHOWN {
        let _ = writeln!(out, "<li>… and {} more</li>", total - FILES_SHOWN);
    }
    out.push_str("</ul>\n</div>\n</div>\n</section>\n");
}

/// Text from the repository as HTML text or attribute value: `&<>"'`
/// escaped, and every control character (but none of the text) shown as
/// its code point, so nothing from the inputs becomes markup.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}
