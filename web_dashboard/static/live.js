// The live table page: follows the table over Server-Sent Events and renders each
// public snapshot. No framework, nothing from a CDN: the Pi serves everything.
// Names come from players, so text is always set with textContent, never as HTML.
(function () {
  "use strict";
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const M = boot.messages;
  const $ = (id) => document.getElementById(id);

  const t = window.briscolaPage.translator(M);
  const el = window.briscolaPage.el;

  let state = boot.state;
  const names = () => (state.match && state.match.names) || [];
  const nameOf = (seat) => names()[seat] || "P" + (seat + 1);
  const joinNames = (seats) => {
    const all = seats.map(nameOf);
    return all.length < 2 ? (all[0] || "")
      : t("names_and", {names: all.slice(0, -1).join(", "), last: all[all.length - 1]});
  };

  function cardImg(code, cls) {
    const deck = (state.match && state.match.deck) || "builtin";
    const rank = parseInt(code, 10);
    const label = (boot.ranks[rank] || String(rank)) + " " + (boot.suits[code.slice(-1)] || "");
    return el("img", {src: "/cards/" + encodeURIComponent(deck) + "/" + code, alt: label,
                      class: cls, width: 100, height: 150});
  }

  // -- the live view -------------------------------------------------------------
  function renderStatus(s) {
    const box = $("status");
    box.replaceChildren();
    if (!s.match) {
      box.append(el("p", {class: "big", text: t("no_match")}),
                 el("p", {}, el("a", {class: "button", href: "/setup/", text: t("set_up_match")})));
      return;
    }
    const h = s.hand;
    if (!h) { box.append(el("p", {class: "big", text: t("waiting_hand")})); return; }
    let line = t("hand_n", {n: h.number});
    const p = el("p", {class: "big", id: "status-line"});
    p.append(line);
    if (h.over && s.next_dealer !== null && s.next_dealer !== undefined) {
      p.append(el("span", {class: "muted", id: "next-dealer",
                                   text: t("next_dealer", {name: nameOf(s.next_dealer)})}));
    }
    if (h.turn !== null && h.turn !== undefined && !h.over) {
      p.append(" · ", el("span", {class: "turn", id: "turn-name",
                                   text: t("your_turn", {name: nameOf(h.turn)})}));
    }
    box.append(p);
    const dn = h.dealer_note;
    if (dn) {  // a referee note, not a violation: who dealt, whose deal it was
      box.append(el("p", {class: "note", id: "dealer-note",
                          text: t("note_dealer", {name: nameOf(dn.seat),
                                                  expected: nameOf(dn.expected)})}));
    }
    // The finished hand stays one tap away once the next one is on the table.
    if (!h.over && s.last_finished !== null && s.last_finished !== undefined && s.match.id) {
      box.append(el("p", {}, el("a", {id: "last-hand",
                                      href: "/history/" + s.match.id + "/hands/" + s.last_finished,
                                      text: t("see_last_hand")})));
    }
  }

  // The demo's pause between hands: the seconds left, sent by the table each second.
  function renderCountdown(s) {
    const box = $("countdown");
    const n = s.next_hand_in;
    const show = n !== null && n !== undefined && s.hand && s.hand.over;
    box.hidden = !show;
    box.textContent = show ? t("next_hand_in", {n: n}) : "";
  }

  function renderBoard(h, note_) {
    $("board").hidden = !h;
    if (!h) return;
    const trump = $("trump-card");
    trump.replaceChildren();
    if (h.briscola) trump.append(cardImg(h.briscola));
    else if (h.called) trump.append(cardImg(h.called));
    $("trump-name").textContent = h.trump ? boot.suits[h.trump] : "";
    $("trump-name").className = h.trump ? "trump-suit" : "muted";
    const stock = $("stock");
    stock.replaceChildren();
    if (h.stock > 0) {
      stock.append(el("img", {src: "/cards/back.svg", alt: "", class: "back", width: 100,
                              height: 150}),
                   el("span", {text: t("cards_left", {n: h.stock})}));
    }

    const list = $("trick-cards");
    list.replaceChildren();
    let best = null;
    if (h.trick_complete && h.last_winner !== null) best = h.last_winner;
    for (const play of h.trick) {
      list.append(el("li", {class: "c" + play.seat + (play.seat === best ? " best" : ""),
                            "data-card": play.card},
                     cardImg(play.card), el("span", {text: nameOf(play.seat)})));
    }
    let note = "";
    if (h.trick_complete && h.last_winner !== null) {
      note = t("takes_trick", {name: nameOf(h.last_winner)});
    } else if (!h.trick.length && h.turn !== null && !h.over) {
      note = t("leads", {name: nameOf(h.turn)});
    }
    if (note_ && note_.briscola_taker !== undefined) {
      note += (note ? " · " : "") + t("briscola_taker", {name: nameOf(note_.briscola_taker)});
    }
    $("trick-note").textContent = note;
    $("trick-title").textContent = h.trick.length && h.trick_complete && h.tricks_played
      ? t("trick_n", {n: h.tricks_played}) : t("current_trick");
  }

  function renderProgress(h) {
    $("progress").hidden = !h;
    if (!h) return;
    $("progress-text").textContent = t("tricks_played", {n: h.tricks_played, left: h.tricks_left});
    $("last-trick").textContent = h.last_winner === null || h.last_winner === undefined
      ? "" : t("last_trick_won", {name: nameOf(h.last_winner)});
    const bar = $("progress-bar");
    bar.replaceChildren();
    for (let i = 0; i < h.tricks_total; i++) {
      const w = h.trick_winners[i];
      bar.append(el("li", w === undefined ? {} : {class: "won c" + w, title: nameOf(w)}));
    }
  }

  function renderSeats(s) {
    const h = s.hand;
    $("seats").hidden = !s.match;
    if (!s.match) return;
    const list = $("seat-list");
    list.replaceChildren();
    // 4 and 6 players (and chiamata's sides once the partner is known): who plays with
    // whom, by name. Never their points during the hand: those come with the reveal.
    const teams = (h && h.teams) || [];
    const teamOf = (seat) => teams.findIndex((team) => team.includes(seat));
    const legend = $("team-list");
    legend.replaceChildren();
    legend.hidden = teams.length === 0;
    teams.forEach((team, i) => {
      legend.append(el("li", {class: "team team-" + i, "data-team": i},
                       el("strong", {text: t("team_n", {n: i + 1}) + " "}),
                       el("span", {text: team.map(nameOf).join(" + ")})));
    });
    names().forEach((name, seat) => {
      const team = teamOf(seat);
      const li = el("li", {class: "seat-" + seat + (h && h.turn === seat && !h.over ? " turn" : "")
                                  + (team >= 0 ? " team-" + team : ""),
                           "data-seat": seat, "data-team": team >= 0 ? team : null},
                    el("i", {class: "dot"}), el("span", {class: "name", text: name}));
      const badges = el("span", {class: "badges"});
      if (team >= 0) badges.append(el("span", {class: "badge team-badge",
                                               text: t("team_n", {n: team + 1})}));
      if (h && h.dealer === seat) badges.append(el("span", {class: "badge", text: t("dealer")}));
      if (h && h.caller === seat) badges.append(el("span", {class: "badge", text: t("caller") +
        " " + (h.called ? cardName(h.called) : "") + " " + t("bid", {n: h.bid})}));
      if (h && h.partner === seat && h.partner !== h.caller) {
        badges.append(el("span", {class: "badge", text: t("partner")}));
      }
      // The count says what it counts: a phone shows no tooltip, and "🂠 13" alone
      // reads as cards in hand.
      const piles = el("span", {class: "piles", title: t("tricks"),
                                text: h ? "🂠 " + h.tricks_won[seat] : ""});
      if (h) piles.append(el("small", {class: "piles-label", text: t("tricks").toLowerCase()}));
      li.append(piles);
      li.append(badges);
      list.append(li);
    });
    $("hidden-note").hidden = !h || h.over;
  }

  function cardName(code) {
    const rank = parseInt(code, 10);
    return t("card_of", {rank: M["rank_" + rank] || String(rank), suit: boot.suits[code.slice(-1)]});
  }

  function renderViolation(s) {
    const v = s.violation;
    const show = v && s.hand && v.hand === s.hand.index && !s.hand.over;
    $("violation").hidden = !show;
    if (!show) return;
    $("violation-kind").textContent = t("kind_" + v.kind);
    const what = $("violation-what");
    what.replaceChildren();
    if (v.card) what.append(cardImg(v.card));
    const who = v.seat !== null && v.seat !== undefined && v.seat < names().length
      ? nameOf(v.seat) : "";
    what.append(el("span", {text: [who, v.card ? cardName(v.card) : ""].filter(Boolean)
      .join(" · ")}));
    // In the player's language when there is a phrase for it; the referee's words else.
    // Without a card (the server names none that may lie in a taken trick): the phrase
    // that says "that card".
    const cardless = ["no_trump", "hand_over", "illegal_swap", "out_of_turn"];
    const key = "msg_" + v.kind + (v.card || cardless.includes(v.kind) ? "" : "_nocard");
    const detail = $("violation-message");
    detail.textContent = M[key]
      ? t(key, {name: who || "?", card: v.card ? cardName(v.card) : "",
                turn: s.hand.turn === null ? "?" : nameOf(s.hand.turn)})
      : v.message;
    detail.title = v.message;
  }

  // Cards the table holds: which seat, why, and (unlocked) the camera's few likely
  // cards, then a plain rank + suit chooser over the whole deck. Never a list of the
  // cards still possible: it would tell which are already in taken tricks.
  function holdForm(hold, cls) {
    const form = el("form", {method: "post", action: boot.pickUrl, class: cls});
    form.append(el("input", {type: "hidden", name: "csrf_token", value: boot.csrf}));
    if (hold.seat === null || hold.seat === undefined) {
      form.append(el("input", {type: "hidden", name: "zone", value: hold.zone}));
    } else {
      form.append(el("input", {type: "hidden", name: "seat", value: String(hold.seat)}));
    }
    return form;
  }

  function pickForm(hold, code) {
    const form = holdForm(hold, "pick");
    form.append(el("input", {type: "hidden", name: "card", value: code}));
    const button = el("button", {type: "submit", class: "pick-likely",
                                 title: cardName(code), "data-card": code});
    button.append(cardImg(code, "pick-card"));
    form.append(button);
    return form;
  }

  // The deck's own names: a French-suited deck has hearts and J/Q/K on the same codes.
  function rankWord(rank) {
    const french = state.match && state.match.deck === "french";
    if (french && M["frank_" + rank]) return M["frank_" + rank];
    return M["rank_" + rank] || String(rank);
  }

  function suitWord(suit) {
    const french = state.match && state.match.deck === "french";
    return french ? t("fsuit_" + suit) : boot.suits[suit];
  }

  function chooserForm(hold) {
    const form = holdForm(hold, "pick-choose");
    const rank = el("select", {name: "rank", "aria-label": t("rank")});
    for (let r = 1; r <= 10; r++) rank.append(el("option", {value: String(r), text: rankWord(r)}));
    const suit = el("select", {name: "suit", "aria-label": t("suit")});
    for (const x of "dcsb") suit.append(el("option", {value: x, text: suitWord(x)}));
    form.append(rank, el("span", {text: " " + t("of") + " "}), suit, " ",
                el("button", {type: "submit", class: "pick-other", text: t("hold_name_it")}));
    return form;
  }

  function renderHolds(s) {
    const holds = s.holds || [];
    $("holds").hidden = holds.length === 0;
    const box = $("hold-list");
    box.replaceChildren();
    for (const h of holds) {
      const who = h.seat === null || h.seat === undefined ? t("briscola_spot") : nameOf(h.seat);
      const item = el("div", {class: "hold", "data-seat": h.seat === null ? "" : String(h.seat)});
      item.append(el("p", {class: "hold-text", text: t("hold_" + h.reason, {name: who})}));
      if (h.reason !== "missing") {
        if (!boot.csrf) {
          item.append(el("p", {class: "muted"}, el("a", {href: "/unlock?next=/",
                                                         text: t("hold_unlock")})));
        } else {
          const likely = h.likely || [];
          if (likely.length) {
            item.append(el("h3", {text: t("hold_likely")}));
            const row = el("div", {class: "pick-row"});
            for (const code of likely) row.append(pickForm(h, code));
            item.append(row);
          }
          item.append(el("h3", {text: t("hold_other_card")}), chooserForm(h));
        }
      }
      box.append(item);
    }
  }

  // Chiamata's auction is spoken: an unlocked phone enters its result (caller, called
  // card, bid), the others wait for it, then everyone sees the call. The choices never
  // depend on the cards dealt, and the partner is not named here.
  function auctionOpen(h) {
    return !!h && h.players === 5 && !h.called && !h.over && !h.trick.length &&
      !h.tricks_played;
  }

  function labelled(text, control) {
    return el("label", {}, text + " ", control);
  }

  function renderAuction(s) {
    const h = s.hand;
    const box = $("auction");
    const open = auctionOpen(h);
    box.hidden = !(open || (h && h.players === 5 && h.called));
    const key = open ? "open:" + h.index + ":" + Boolean(boot.csrf)
      : h && h.called ? ["called", h.index, h.caller, h.called, h.bid].join(":") : "";
    if (box.dataset.key === key) return;  // a half-filled form is left as it is
    box.dataset.key = key;
    box.replaceChildren();
    if (h && h.called && !open) {
      box.append(el("p", {class: "big", id: "auction-result",
                          text: t("auction_called", {name: nameOf(h.caller),
                                                     card: cardName(h.called), n: h.bid})}));
      return;
    }
    if (!open) return;
    box.append(el("h2", {text: t("auction")}));
    if (!boot.csrf) {
      box.append(el("p", {class: "big", id: "auction-waiting", text: t("auction_waiting")}));
      return;
    }
    const form = el("form", {method: "post", action: boot.callUrl, class: "correction",
                             id: "auction-form"});
    form.append(el("input", {type: "hidden", name: "csrf_token", value: boot.csrf}));
    const caller = el("select", {name: "caller"});
    names().forEach((name, seat) => {
      const p = "P" + (seat + 1);
      caller.append(el("option", {value: String(seat), selected: seat === h.turn,
                                  text: name === p ? p : p + " · " + name}));
    });
    const rank = el("select", {name: "rank"});
    for (const r of boot.auctionRanks) rank.append(el("option", {value: String(r), text: rankWord(r)}));
    const suit = el("select", {name: "suit"});
    for (const x of "dcsb") suit.append(el("option", {value: x, text: suitWord(x)}));
    const bid = el("input", {type: "number", name: "bid", min: 61, max: 120, step: 1,
                             value: 61, required: true});
    form.append(labelled(t("auction_caller"), caller), labelled(t("rank"), rank),
                labelled(t("suit"), suit), labelled(t("auction_bid"), bid),
                el("button", {type: "submit", id: "btn-call", text: t("auction_confirm")}));
    box.append(form);
  }

  function renderStanding(s) {
    const st = s.standing;
    $("standing").hidden = !st || !s.match || st.hands_played === 0;
    if (!st || !s.match) return;
    $("standing-length").textContent = st.length ? t("best_of", {n: st.length}) : t("open_series");
    const list = $("standing-list");
    list.replaceChildren();
    names().forEach((name, seat) => {
      const won = st.hands_won[seat] || 0;
      list.append(el("li", {class: "seat-" + seat},
                     el("span", {text: name + " "}),
                     el("strong", {"data-n": String(won), text: t("hands_won", {n: won})})));
    });
  }

  // -- the reveal ------------------------------------------------------------------
  let revealed = null;

  function countUp(node, target, ms) {
    const start = performance.now();
    node.dataset.final = String(target);
    function step(now) {
      const k = Math.min(1, Math.max(0, (now - start) / ms));  // rAF time may precede start
      const eased = 1 - Math.pow(1 - k, 3);
      node.textContent = String(Math.round(target * eased));
      if (k < 1) requestAnimationFrame(step);
      else node.textContent = String(target);
    }
    if (matchMedia("(prefers-reduced-motion: reduce)").matches || document.hidden) {
      node.textContent = String(target);
    } else {
      requestAnimationFrame(step);
    }
  }

  function renderReveal(s) {
    const box = $("reveal");
    const r = s.reveal;
    if (!r || !s.hand || !s.hand.over) {
      const wasShown = revealed !== null;
      box.hidden = true;
      box.replaceChildren();
      revealed = null;
      // The next hand has begun: bring its heading into view (the reveal was below it).
      if (wasShown && s.hand && !document.hidden) {
        const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
        window.scrollTo({top: 0, behavior: smooth ? "smooth" : "auto"});
      }
      return;
    }
    const key = (s.match && s.match.id) + ":" + s.hand.index;
    if (revealed === key) return; // already on screen: do not restart the show
    revealed = key;
    box.replaceChildren();
    box.hidden = false;
    const confetti = el("div", {class: "confetti", "aria-hidden": "true"});
    for (let i = 0; i < 20; i++) confetti.append(el("i"));
    box.append(confetti, el("h2", {class: "title", text: t("reveal")}));

    const total = r.points.reduce((a, b) => a + b, 0) || 120;
    const scores = el("ul", {class: "scores", id: "scores"});
    const bars = [];
    r.points.forEach((pts, seat) => {
      const value = el("strong", {class: "pts", "data-seat": seat, text: "0"});
      const fill = el("i");
      bars.push([fill, pts]);
      const row = el("li", {class: "seat-" + seat},
                     el("span", {class: "name", text: nameOf(seat)}), value,
                     el("span", {class: "bar"}, fill));
      scores.append(row);
      // The winner is marked with the banner, once the counting is done.
      if (r.winners.includes(seat)) setTimeout(() => row.classList.add("winner"), 2600);
      setTimeout(() => countUp(value, pts, 2200), 400);
    });
    box.append(scores);
    if (r.team_points && r.teams) {
      const teams = el("ul", {class: "scores teams", id: "team-scores"});
      r.teams.forEach((team, i) => {
        const value = el("strong", {class: "pts", "data-team": i, text: "0"});
        teams.append(el("li", {class: "seat-" + team[0]},
                           el("span", {class: "name", text: t("team") + " " + team.map(nameOf).join(" + ")}),
                           value));
        setTimeout(() => countUp(value, r.team_points[i], 2200), 400);
      });
      box.append(teams);
    }
    const banner = r.outcome === "tie" ? t("tie")
      : t("wins_hand", {n: r.winners.length, names: joinNames(r.winners)});
    box.append(el("p", {class: "banner", id: "banner", text: banner}));
    if (s.match_over && s.standing && s.standing.winners.length) {
      box.append(el("p", {class: "banner match",
                          text: "★ " + t("wins_match", {n: s.standing.winners.length,
                                                  names: joinNames(s.standing.winners)})}));
    }
    if (s.standing && s.standing.hands_played) {
      const series = el("p", {class: "series", id: "series"},
                          el("span", {class: "muted", text: t("series") + " "}));
      names().forEach((name, seat) => {
        if (seat) series.append(" · ");
        series.append(el("span", {class: "seat-" + seat, text: name + " "}),
                      el("strong", {text: String(s.standing.hands_won[seat] || 0)}));
      });
      if (s.standing.length) series.append(el("span", {class: "muted",
        text: " (" + t("best_of", {n: s.standing.length}) + ")"}));
      box.append(series);
    }
    box.append(el("h2", {text: t("trick_account")}));
    const tricks = el("ol", {class: "tricks"});
    for (const tr of r.tricks) {
      const mini = el("span", {class: "mini"});
      for (const p of tr.plays) mini.append(cardImg(p.card));
      tricks.append(el("li", {class: "seat-" + tr.winner + (tr.points ? "" : " zero")},
                       el("span", {class: "n", text: String(tr.n)}), mini,
                       el("span", {class: "who", text: nameOf(tr.winner)}),
                       el("strong", {text: "+" + tr.points})));
    }
    box.append(tricks);
    // Bars grow after the first paint so that the transition runs.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const [fill, pts] of bars) fill.style.width = (100 * pts / total) + "%";
    }));
    // offsetTop ignores the entrance transform (scrollIntoView would overshoot).
    if (!document.hidden) window.scrollTo({top: Math.max(0, box.offsetTop - 8), behavior: "smooth"});
  }

  function render(s) {
    state = s;
    renderStatus(s);
    renderBoard(s.hand, s.note);
    renderProgress(s.hand);
    renderSeats(s);
    renderViolation(s);
    renderHolds(s);
    renderAuction(s);
    renderReveal(s);
    renderCountdown(s);
    renderStanding(s);
    document.body.dataset.seq = String(s.seq);
  }

  // -- the stream -------------------------------------------------------------------
  let source = null;
  let lastId = null;
  let lastBeat = Date.now();
  const STALE_MS = 40000; // no message nor ping for this long: the connection is dead

  function connect() {
    if (source) source.close();
    const url = boot.streamUrl + (lastId ? "?last_id=" + encodeURIComponent(lastId) : "");
    source = new EventSource(url);
    source.addEventListener("state", (e) => {
      lastId = e.lastEventId || lastId;
      lastBeat = Date.now();
      $("conn").hidden = true;
      render(JSON.parse(e.data));
    });
    source.addEventListener("ping", () => { lastBeat = Date.now(); $("conn").hidden = true; });
    source.onopen = () => { lastBeat = Date.now(); $("conn").hidden = true; };
    source.onerror = () => { $("conn").hidden = false; };
  }

  // A phone waking up may hold a dead stream: reopen it, asking for what it missed.
  function checkAlive() {
    if (!source || source.readyState === 2 || Date.now() - lastBeat > STALE_MS) connect();
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden) checkAlive(); });
  setInterval(checkAlive, 10000);

  render(state);
  connect();
})();
