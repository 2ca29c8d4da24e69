/* Typesets the formulas pymdownx.arithmatex (generic mode) leaves in the page, \( \) inline and \[ \]
   displayed, with the vendored KaTeX (docs/assets/katex): nothing is fetched from the network.
   Material's document$ fires on every page load, including its instant navigation. */
(() => {
  const typeset = () => {
    for (const element of document.querySelectorAll(".arithmatex")) {
      const tex = element.textContent.trim();
      const display = tex.startsWith("\\[");
      katex.render(tex.slice(2, -2), element, { displayMode: display, throwOnError: false });
    }
  };
  if (typeof document$ !== "undefined") document$.subscribe(typeset);
  else document.addEventListener("DOMContentLoaded", typeset);
})();
