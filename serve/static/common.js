// Shared by the pages: the JSON API, SVG cards, and the table as one observer sees it.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RED = { D: true, H: true };
const SVG_NS = "http://www.w3.org/2000/svg";

async function api(path, options = {}) {
  // Calls the API; a refusal throws an Error carrying the server's message.
  const init = { method: options.method || "GET", headers: {}, credentials: "same-origin" };
  if (options.json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  } else if (options.body !== undefined) {
    init.body = options.body;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error("the server cannot be reached: is allfours-serve running?");
  }
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || `the server answered ${response.status}`);
  }
  return data;
}

function el(tag, attrs = {}, ...children) {
  // An HTML element with attributes (class, data-*, ...) and children (elements or text).
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardLabel(card) {
  // "AS" -> "A♠", "TH" -> "10♥", "JK" -> "JK".
  if (card === "JK") return "JK";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cardSVG(card, { small = false } = {}) {
  // One card drawn in SVG: rank and suit in the corners, the suit large in the middle; null: face down.
  const w = 60, h = 84;
  const root = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "card-svg" + (small ? " small" : ""),
                            role: "img", "aria-label": card ? cardLabel(card) : "face-down card" });
  if (!card) {
    root.append(svg("rect", { x: 1, y: 1, width: w - 2, height: h - 2, rx: 6, class: "back" }));
    root.append(svg("rect", { x: 6, y: 6, width: w - 12, height: h - 12, rx: 4, class: "back-inner" }));
    return root;
  }
  const joker = card === "JK";
  const colour = joker ? "joker" : (RED[card[1]] ? "red" : "black");
  root.append(svg("rect", { x: 1, y: 1, width: w - 2, height: h - 2, rx: 6, class: "face" }));
  const rank = joker ? "JK" : (card[0] === "T" ? "10" : card[0]);
  const suit = joker ? "★" : SUITS[card[1]];
  root.append(svg("text", { x: 5, y: 17, class: `rank ${colour}` }, rank));
  root.append(svg("text", { x: 5, y: 31, class: `pip ${colour}` }, suit));
  root.append(svg("text", { x: w / 2, y: h / 2 + 13, "text-anchor": "middle", class: `big ${colour}` }, suit));
  root.append(svg("text", { x: w - 5, y: h - 7, "text-anchor": "end", class: `rank ${colour}` }, rank));
  return root;
}

function cardNode(card, attrs = {}) {
  // A card in a wrapper that tests and clicks can find by data-card.
  return el("span", Object.assign({ class: "card", "data-card": card || "back" }, attrs), cardSVG(card));
}

function seatName(state, seat, labels) {
  const extra = labels && labels[seat] ? ` (${labels[seat]})` : "";
  return `player_${seat}${extra}`;
}

function renderInfo(state) {
  // Scores, trump, turn-ups, bids, contract, stock: what everyone sees.
  const scores = el("table", { id: "scores", class: "scores" },
    el("tr", {}, el("th", { text: "side" }), el("th", { text: `score (to ${state.target})` })),
    state.side_names.map((name, side) => el("tr", { "data-side": side },
      el("td", { text: name }), el("td", { class: "num", "data-score": state.scores[side], text: state.scores[side] }))));
  const facts = el("dl", { id: "facts", class: "facts" });
  const fact = (term, ...value) => facts.append(el("dt", { text: term }), el("dd", {}, ...value));
  fact("game", `${state.preset} · ${state.players} players · hand ${state.hand}`);
  fact("dealer", `player_${state.dealer}`);
  if (state.trump) fact("trump", el("span", { id: "trump", text: state.trump }));
  else if (state.proposed) fact("proposed trump", state.proposed);
  if (state.turnups.length) fact("turned up", el("span", { class: "row" }, state.turnups.map(c => cardNode(c))));
  if (state.bids.length) fact("bids", state.bids.map(b => `player_${b.seat} ${b.bid}`).join(", "));
  if (state.pitcher !== null) fact("contract", `player_${state.pitcher} pitches, contract ${state.contract}`);
  if (state.stock) fact("stock", `${state.stock.left} cards`, state.stock.top ? el("span", { class: "row" }, " top: ", cardNode(state.stock.top)) : "");
  return el("div", { class: "info" }, scores, facts);
}

function renderSeats(state, { labels = {}, agents = {}, legal = {}, onCard = null } = {}) {
  // Every seat: its cards (face up where this observer sees them, else backs), discards, and the trick.
  const seats = el("div", { class: "seats", id: "seats" });
  for (const seat of state.seats) {
    const turn = state.to_move === seat.seat;
    const head = el("div", { class: "seat-head" },
      el("strong", { text: seatName(state, seat.seat, labels) }),
      agents[seat.seat] ? el("span", { class: "agent", text: ` ${agents[seat.seat]}` }) : "",
      el("span", { class: "count", text: ` · ${seat.count} cards` }),
      turn ? el("span", { class: "turn", text: " · to move" }) : "");
    let cards;
    if (seat.cards) {
      cards = seat.cards.map(card => {
        const action = legal[card];
        if (action !== undefined && onCard) {
          return el("button", { class: "card legal", "data-card": card, "data-action": action,
                                title: `play ${cardLabel(card)}`, onclick: () => onCard(action) }, cardSVG(card));
        }
        return cardNode(card, { class: onCard && Object.keys(legal).length ? "card illegal" : "card" });
      });
    } else {
      cards = Array.from({ length: seat.count }, () => cardNode(null, { class: "card back" }));
    }
    const discards = seat.discard_count
      ? el("div", { class: "discards" }, "discarded: ",
           seat.discards ? seat.discards.map(c => cardNode(c)) : `${seat.discard_count} cards`)
      : "";
    seats.append(el("div", { class: "seat" + (turn ? " to-move" : ""), "data-seat": seat.seat,
                             id: seat.seat === state.observer ? "hand" : null },
      head, el("div", { class: "cards" }, cards), discards));
  }
  return seats;
}

function renderTrick(state) {
  const trick = el("div", { id: "trick", class: "trick" }, el("h3", { text: "trick" }));
  if (!state.trick.length) trick.append(el("p", { class: "muted", text: "no card played yet" }));
  for (const played of state.trick) {
    trick.append(el("figure", { class: "played", "data-seat": played.seat },
      cardNode(played.card), el("figcaption", { text: `player_${played.seat}` })));
  }
  const last = el("div", { id: "last-trick", class: "last-trick" });
  if (state.last_trick) {
    last.append(el("h3", { text: `last trick: player_${state.last_trick.winner} won` }));
    for (const played of state.last_trick.cards) {
      last.append(el("figure", { class: "played small" }, cardNode(played.card),
        el("figcaption", { text: `player_${played.seat}` })));
    }
  }
  return el("div", { class: "centre" }, trick, last);
}

function renderHands(state) {
  // The hands played: each one's awards (High, Low, Jack, Game and the preset's own kinds).
  const box = el("div", { id: "hands-played", class: "hands-played" }, el("h3", { text: "hands played" }));
  if (!state.hands_played.length) box.append(el("p", { class: "muted", text: "none yet" }));
  for (const hand of state.hands_played.slice().reverse()) {
    box.append(renderAwards(hand));
  }
  return box;
}

function renderAwards(hand) {
  return el("div", { class: "awards", "data-hand": hand.hand },
    el("strong", { text: `hand ${hand.hand}: ` }),
    hand.awards.length ? hand.awards.map(a => el("span", { class: "award", "data-kind": a.kind },
      `${a.title} ${a.points > 0 ? "+" : ""}${a.points} ${a.side_name}`)) : "no points",
    el("span", { class: "after", text: ` → ${hand.scores.join("–")}` }));
}

function renderLog(state) {
  return el("div", { id: "log", class: "log" }, el("h3", { text: "this hand" }),
    el("ol", {}, state.log.map(line => el("li", { text: line }))));
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}
