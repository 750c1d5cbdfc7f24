// What the live page and the club's grid share: the catalog's messages with their
// plural forms, and building elements whose text is always set with textContent.
(function () {
  "use strict";
  // A plural message is a list of forms; the catalog's own rule (a table by n, from the
  // server) says which one agrees with values.n.
  function translator(M) {
    return function t(key, values) {
      let text = M[key] || key;
      if (Array.isArray(text)) {
        const n = Math.abs(Math.trunc(Number((values || {}).n) || 0));
        const form = M.plural[Math.min(n, M.plural.length - 1)] || 0;
        text = text[Math.min(form, text.length - 1)];
      }
      for (const k in values || {}) text = text.split("{" + k + "}").join(String(values[k]));
      return text;
    };
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c) node.append(c);
    return node;
  }

  window.briscolaPage = {translator, el};
})();
