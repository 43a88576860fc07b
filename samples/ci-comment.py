#!/usr/bin/env python3
"""Renders a pull-request comment (Markdown) as an HTML page that looks like
GitHub's: the comment box with its header and GitHub-like styles, so that
headless Chromium can take its picture (samples/ci-comment.sh).  Python's
standard library and python3-markdown (Debian) with the tables, fenced code
and md_in_html extensions; <details> blocks keep their Markdown, folded.

usage: ci-comment.py COMMENT.md PAGE.html [AUTHOR]"""
import html, re, sys

import markdown

CSS = """
body { margin: 0; padding: 16px; background: #ffffff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans", sans-serif; }
.box { border: 1px solid #d1d9e0; border-radius: 6px; max-width: 1000px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
  border-radius: 6px 6px 0 0; color: #59636e; }
.head b { color: #1f2328; }
.bot { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px; margin-left: 4px; }
.body { padding: 16px; overflow-wrap: break-word; }
.body > :first-child { margin-top: 0; }
.body > :last-child { margin-bottom: 0; }
h3 { font-size: 1.25em; font-weight: 600; margin: 24px 0 16px; }
h4 { font-size: 1em; font-weight: 600; margin: 24px 0 16px; }
p, ul, table, details { margin: 0 0 16px; }
ul { padding-left: 2em; }
a { color: #0969da; text-decoration: none; }
code { font: 85% ui-monospace, SFMono-Regular, Menlo, "DejaVu Sans Mono", monospace;
  background: #818b981f; border-radius: 6px; padding: .2em .4em; }
table { border-collapse: collapse; display: block; overflow: auto; max-width: 100%; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; white-space: nowrap; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
summary { cursor: pointer; }
sub { color: #59636e; }
"""


def main():
    src, dst = sys.argv[1], sys.argv[2]
    author = sys.argv[3] if len(sys.argv) > 3 else "github-actions"
    text = open(src, encoding="utf-8").read()
    # GitHub renders Markdown inside <details>: md_in_html needs the attribute
    text = re.sub(r"<details>", '<details markdown="1">', text)
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "md_in_html"])
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>comment</title>"
            "<style>%s</style></head><body><div class=\"box\"><div class=\"head\"><b>%s</b>"
            "<span class=\"bot\">bot</span> commented</div><div class=\"body\">\n%s\n</div></div>"
            "<script>document.title = 'height=' + Math.ceil(document.documentElement.getBoundingClientRect().height);"
            "</script></body></html>\n") % (CSS, html.escape(author), body)
    with open(dst + ".tmp", "w", encoding="utf-8") as f:
        f.write(page)
    import os
    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
