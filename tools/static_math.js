// The book's mathematics typeset once, at build time, by the MathJax that readers' browsers
// used to run on every page load (the copy sphinx-mathjax-offline ships): same version, same
// CommonHTML output, same fonts. Called by tools/sphinx_static_math.py with one JSON object on
// stdin:
//   {"mathjax": "<folder of node-main.js>", "fontURL": "<the fonts' URL from the stylesheet>",
//    "items": [["<TeX>", true for display math], ...]}
// and answers one JSON object on stdout:
//   {"html": ["<mjx-container ...>", ...] (one per item, "" where it failed),
//    "errors": [[index, "TeX error message"], ...], "css": "<the stylesheet>"}
// The items are every formula of the book (also of pages an incremental build did not write
// again), so the stylesheet, which holds the rules of the characters and constructs typeset
// (MathJax's adaptive CSS), serves every page.
"use strict";

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const MathJax = require(request.mathjax + "/node-main.js");
  MathJax.init({
    loader: {load: ["input/tex", "output/chtml", "adaptors/liteDOM", "a11y/assistive-mml"]},
    // a TeX error or an undefined macro is reported (and fails the build), not typeset as red
    // text as the browser's noundefined package did
    tex: {packages: {"[-]": ["noundefined"]}, formatError: (jax, error) => { throw error; }},
    chtml: {fontURL: request.fontURL},
    startup: {typeset: false},
  }).then((MJ) => {
    const adaptor = MJ.startup.adaptor;
    const html = [];
    const errors = [];
    // one after another: the promise form loads an extension a macro needs (autoload)
    let done = Promise.resolve();
    request.items.forEach(([tex, display], index) => {
      done = done.then(() => MJ.tex2chtmlPromise(tex, {display: display}))
        .then((node) => html.push(adaptor.outerHTML(node)))
        .catch((error) => {
          html.push("");
          errors.push([index, String(error.message || error)]);
        });
    });
    return done.then(() => {
      // What MathJax does in the browser (matchFontHeight): each formula scaled so that its
      // x-height equals the surrounding text's, here in CSS, so in every reader's own font.
      const xHeight = MJ.startup.output.font.params.x_height;
      const css = adaptor.textContent(MJ.chtmlStylesheet()) +
        `\nmjx-container[jax="CHTML"] {\n  font-size: calc(1ex / ${xHeight});\n}\n`;
      process.stdout.write(JSON.stringify({html: html, errors: errors, css: css}));
    });
  }).catch((error) => {
    process.stderr.write(String((error && error.stack) || error) + "\n");
    process.exit(1);
  });
});
