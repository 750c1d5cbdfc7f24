// The club's grid of tables: follows the club over Server-Sent Events (/stream) and
// draws each table's tile as templates/club/_tile.html does. Without this script the
// page reloads itself (a <noscript> refresh). Names come from the tables: text is
// always set with textContent, never as HTML.
(function () {
  "use strict";
  const boot = JSON.parse(document.getElementById("club-boot").textContent);
  const M = boot.messages;
  const W = boot.words;
  const grid = document.getElementById("club-grid");
  if (!grid) return;

  const t = window.briscolaPage.translator(M);
  const el = window.briscolaPage.el;

  function joined(names) {
    return names.length < 2 ? (names[0] || "")
      : t("names_and", {names: names.slice(0, -1).join(", "), last: names[names.length - 1]});
  }

  function cardLabel(code) {
    const rank = parseInt(code, 10);
    return t("card_of", {rank: M["rank_" + rank] || String(rank), suit: M["suit_" + code.slice(-1)] || ""});
  }

  function card(deck, code, caption, cls) {
    return el("figure", {class: cls},
      el("img", {src: "/cards/" + encodeURIComponent(deck) + "/" + encodeURIComponent(code),
                 alt: cardLabel(code), width: 50, height: 75}),
      el("figcaption", {text: caption}));
  }

  function tile(c) {
    const box = el("section", {class: "panel club-table", id: "table-" + c.table});
    box.append(el("h2", {text: c.table + " "},
                  el("small", {class: "muted", text: W[c.status] || ""})));
    if (c.names && c.names.length) box.append(el("p", {class: "club-names", text: c.names.join(" · ")}));
    const h = c.hand;
    if (!h) {
      box.append(el("p", {class: "muted", text: t("waiting_hand")}));
    } else {
      const p = el("p", {}, el("strong", {text: t("hand_n", {n: h.number})}));
      p.append(" · " + t("tricks_played", {n: h.tricks_played || 0, left: h.tricks_left || 0}));
      box.append(p);
      if (c.turn) box.append(el("p", {class: "turn", text: t("your_turn", {name: c.turn})}));
      const cards = el("div", {class: "club-cards"});
      if (c.trump) cards.append(card(c.deck, c.trump, M.trump, "club-trump"));
      for (const play of c.trick) cards.append(card(c.deck, play.card, play.name || ""));
      box.append(cards);
      const r = c.result;
      if (r) {
        const text = (r.points || []).join("–") + " · " + (r.outcome === "tie" ? t("tie")
          : t("wins_hand", {n: r.winners.length, names: joined(r.winners)}));
        box.append(el("p", {class: "big", text: text}));
      }
    }
    if (c.hands_won && c.hands_won.length) {
      box.append(el("p", {class: "muted", text: W.match + ": " + c.hands_won.join("–")}));
    }
    return box;
  }

  function render(tables) {
    const none = document.getElementById("club-none");
    if (none) none.hidden = tables.length > 0;
    grid.replaceChildren(...tables.map(tile));
  }

  let source = null;
  function open() {
    if (source) source.close();
    source = new EventSource("/stream");
    source.onmessage = (e) => {
      try { render(JSON.parse(e.data).tables || []); } catch (err) { /* the next one */ }
    };
  }
  open();
  // Back from sleep, a phone's stream may be dead without an error: open it again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && (!source || source.readyState === 2)) open();
  });
})();
