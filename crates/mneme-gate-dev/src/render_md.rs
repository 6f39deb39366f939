//! Markdown as GitHub shows it, for looking at a report the way a reviewer
//! does: GitHub-flavoured Markdown rendered with comrak (tables,
//! strikethrough, autolinks, task lists, the tag filter; raw HTML kept, as
//! GitHub keeps `<details>`), in a page styled like github.com's Markdown
//! (a small stylesheet of our own: nothing is fetched). With a Mermaid
//! script, ```` ```mermaid ```` blocks are drawn as GitHub draws them.
//!
//! `tests/e2e/summary_screenshot.sh` turns such pages into screenshots.

use comrak::{markdown_to_html, Options};

/// GitHub's extensions of CommonMark, and raw HTML kept (the tag filter
/// still disables `<script>`, `<style>`, `<iframe>` and the like).
pub fn options() -> Options<'static> {
    let mut options = Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    #[allow(deprecated)] // GitHub applies it; comrak 0.56 drops the option
    {
        options.extension.tagfilter = true;
    }
    options.render.r#unsafe = true;
    options
}

/// The HTML of `markdown`, as GitHub renders it (before its sanitiser).
pub fn html(markdown: &str) -> String {
    markdown_to_html(markdown, &options())
}

/// A whole page: `markdown` rendered in a GitHub-like frame. `mermaid` is
/// the URL of Mermaid's browser bundle (`mermaid.min.js`); without it,
/// Mermaid blocks stay code, as in a renderer that does not draw them.
pub fn page(markdown: &str, title: &str, mermaid: Option<&str>) -> String {
    let title = title.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let script = match mermaid {
        None => String::new(),
        Some(url) => format!(
            "<script src=\"{}\"></script>\n<script>{DRAW_MERMAID}</script>\n",
            url.replace('&', "&amp;").replace('"', "&quot;")
        ),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<main class=\"markdown-body\">\n{}</main>\n{script}</body>\n</html>\n",
        html(markdown)
    )
}

/// Replaces each Mermaid code block with the diagram, as GitHub does.
const DRAW_MERMAID: &str = r#"
(async () => {
  const blocks = document.querySelectorAll('pre > code.language-mermaid');
  for (const code of blocks) {
    const div = document.createElement('div');
    div.className = 'mermaid';
    div.textContent = code.textContent;
    code.parentElement.replaceWith(div);
  }
  mermaid.initialize({ startOnLoad: false, theme: 'default' });
  await mermaid.run({ querySelector: '.mermaid' });
  document.body.dataset.mermaid = 'drawn';
})();
"#;

/// GitHub's light Markdown style, in brief: its fonts, colours, headings,
/// tables, code, quotes, lists and `<details>`. Linux's usual text fonts
/// are named before the generic family and the emoji fonts: Chromium may
/// resolve `sans-serif` to no font, and an emoji font has glyphs for the
/// digits and the space, which it then draws (`51` as `5 1`).
const STYLE: &str = r#"
body { margin: 0; background: #ffffff; }
.markdown-body {
  box-sizing: border-box; max-width: 1012px; margin: 0 auto; padding: 24px 32px;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, "Liberation Sans",
    "DejaVu Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";
  font-size: 16px; line-height: 1.5; color: #1f2328; word-wrap: break-word;
}
.markdown-body > *:first-child { margin-top: 0 !important; }
.markdown-body h1, .markdown-body h2, .markdown-body h3, .markdown-body h4 {
  margin-top: 24px; margin-bottom: 16px; font-weight: 600; line-height: 1.25;
}
.markdown-body h1 { font-size: 2em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body h4 { font-size: 1em; }
.markdown-body p, .markdown-body blockquote, .markdown-body ul, .markdown-body ol,
.markdown-body table, .markdown-body pre, .markdown-body details { margin-top: 0; margin-bottom: 16px; }
.markdown-body a { color: #0969da; text-decoration: underline; text-underline-offset: .2rem; }
.markdown-body ul, .markdown-body ol { padding-left: 2em; }
.markdown-body li + li { margin-top: .25em; }
.markdown-body li > ul { margin-top: .25em; margin-bottom: 0; }
.markdown-body blockquote { margin-left: 0; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
.markdown-body code {
  padding: .2em .4em; margin: 0; font-size: 85%; white-space: break-spaces; background-color: #818b981f;
  border-radius: 6px; font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace;
}
.markdown-body pre {
  padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45; background-color: #f6f8fa; border-radius: 6px;
}
.markdown-body pre code { padding: 0; background: transparent; font-size: 100%; white-space: pre; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto; border-spacing: 0; border-collapse: collapse; }
.markdown-body table th { font-weight: 600; }
.markdown-body table th, .markdown-body table td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body table tr { background-color: #ffffff; border-top: 1px solid #d1d9e0b3; }
.markdown-body table tr:nth-child(2n) { background-color: #f6f8fa; }
.markdown-body details summary { cursor: pointer; display: list-item; }
.markdown-body .mermaid { margin-bottom: 16px; max-width: 720px; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_details_and_mermaid_render_as_on_github() {
        let md = "| a | b |\n|---|---|\n| `x \\| y` | **z** |\n\n<details><summary><b>s</b></summary>\n\n- i\n\n</details>\n\n\
                  ```mermaid\nxychart-beta\n```\n\n<script>alert(1)</script>\n";
        let html = html(md);
        assert!(html.contains("<table>") && html.contains("<code>x | y</code>") && html.contains("<strong>z</strong>"));
        assert!(html.contains("<details><summary><b>s</b></summary>"), "{html}");
        assert!(html.contains("<code class=\"language-mermaid\">"), "{html}");
        assert!(html.contains("&lt;script>"), "the tag filter disables scripts: {html}");
        let page = page(md, "a <title>", Some("file:///m.js"));
        assert!(page.contains("<title>a &lt;title&gt;</title>") && page.contains("<script src=\"file:///m.js\">"));
        assert!(!super::page(md, "t", None).contains("<script"), "no script without Mermaid");
    }
}
