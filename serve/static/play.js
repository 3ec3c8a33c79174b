// The play page: a game against the bots, seen from your seat; only legal moves can be clicked.
"use strict";

const page = { options: null, state: null, busy: false, timings: [], shown: [] };
// For tests and the curious: each bot move's milliseconds from its request to its display, and the
// "thinking" lines shown while a bot decided.
window.allfours = { timings: page.timings, thinking: page.shown };

function labelsOf(state) {
  const labels = { [state.seat]: "you" };
  state.seats.forEach(s => {
    if (s.seat !== state.seat && s.side === state.sides[state.seat]) labels[s.seat] = "partner";
  });
  return labels;
}

function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map(v => el("option", { value: v, selected: String(v) === String(chosen) }, v)));
}

function refreshSetup() {
  const presets = page.options.presets;
  const preset = document.getElementById("preset").value;
  const playersSelect = document.getElementById("players");
  fillSelect(playersSelect, presets[preset], playersSelect.value || presets[preset][0]);
  const n = Number(playersSelect.value);
  const seat = document.getElementById("seat");
  fillSelect(seat, Array.from({ length: n }, (_, i) => i), Math.min(Number(seat.value || 0), n - 1));
}

async function init() {
  page.options = await api("/api/options");
  fillSelect(document.getElementById("preset"), Object.keys(page.options.presets), "seven_up");
  document.getElementById("agents").replaceChildren(...page.options.agents.map(a => el("option", { value: a })));
  refreshSetup();
  document.getElementById("preset").addEventListener("change", refreshSetup);
  document.getElementById("players").addEventListener("change", refreshSetup);
  document.getElementById("setup").addEventListener("submit", event => { event.preventDefault(); newGame(); });
  document.getElementById("to-replay").addEventListener("click", toReplay);
}

async function newGame() {
  showError("");
  const value = id => document.getElementById(id).value.trim();
  const body = {
    preset: value("preset"), players: Number(value("players")), seat: Number(value("seat")),
    opponents: value("opponents"),
  };
  if (value("partner")) body.partner = value("partner");
  if (value("seed")) {
    if (!/^\d+$/.test(value("seed"))) { showError("the seed is a whole number (or empty for a random one)"); return; }
    body.seed = Number(value("seed"));
  }
  try {
    page.state = await api("/api/games", { method: "POST", json: body });
  } catch (err) { showError(err.message); return; }
  document.getElementById("game").hidden = false;
  render();
  advance();
}

function pause() { return Number(document.getElementById("pause").value); }
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function advance() {
  // Let the bots move one decision at a time, with the chosen pause, until you are to move.
  if (page.busy) return;
  page.busy = true;
  let failed = false;
  try {
    while (page.state.waiting_for === "bot") {
      const seat = page.state.to_move;
      setStatus(`player_${seat} (${page.state.agents[seat]}) to move…`);
      if (pause()) await sleep(pause());
      setStatus(`player_${seat} (${page.state.agents[seat]}) is thinking…`, "thinking");
      page.shown.push(document.getElementById("status").textContent);
      const started = performance.now();
      const answer = await api(`/api/games/${page.state.id}/bot`, { method: "POST" });
      page.state = answer.state;
      render();
      page.timings.push({ agent: page.state.agents[seat], ms: performance.now() - started });
    }
  } catch (err) {
    showError(err.message);
    failed = true;
  } finally {
    page.busy = false;
    render();
  }
  if (failed) {
    document.getElementById("moves").append(el("button", { id: "retry", onclick: advance }, "Ask the bot again"));
  }
}

async function request(path, init) {
  // One change to the game (your move, the next hand); the page is busy until the bots have moved.
  if (page.busy) return;
  page.busy = true;
  showError("");
  try {
    page.state = await api(`/api/games/${page.state.id}/${path}`, init);
  } catch (err) {
    showError(err.message);
  } finally {
    page.busy = false;
  }
  render();
  advance();
}

function act(action) { return request("act", { method: "POST", json: { move: action } }); }
function nextHand() { return request("next-hand", { method: "POST" }); }

async function toReplay() {
  try {
    const made = await api(`/api/games/${page.state.id}/replay`, { method: "POST" });
    window.location.href = made.url;
  } catch (err) { showError(err.message); }
}

function setStatus(text, kind = "") {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = "status " + kind;
}

function render() {
  const state = page.state;
  if (!state) return;
  const labels = labelsOf(state);
  const mine = state.waiting_for === "you" && !page.busy;
  const legal = {};
  const other = [];
  for (const move of mine ? state.moves : []) {
    if (move.card) legal[move.card] = move.action;
    else other.push(move);
  }
  const board = document.getElementById("board");
  board.replaceChildren(renderInfo(state), renderTrick(state),
    renderSeats(state, { labels, agents: state.agents, legal, onCard: mine ? act : null }));
  document.getElementById("moves").replaceChildren(
    ...(mine && state.phase === "discard" ? [el("span", { text: "discard a card (click it) " })] : []),
    ...other.map(move => el("button", { "data-move": move.text, onclick: () => act(move.action) }, move.label)));
  document.getElementById("history").replaceChildren(renderLog(state), renderHands(state));
  const warnings = document.getElementById("warnings");
  warnings.textContent = state.warnings.join(" ");
  warnings.hidden = !state.warnings.length;
  document.getElementById("save").href = `/api/games/${state.id}/record`;
  const over = document.getElementById("hand-over");
  over.hidden = !(state.waiting_for === "next_hand" || state.over);
  if (!over.hidden) {
    const last = state.hands_played[state.hands_played.length - 1];
    over.replaceChildren(
      el("h2", { text: state.over ? `Game over: ${state.winner_name} won` : `Hand ${last.hand} is over` }),
      last ? renderAwards(last) : "",
      el("p", { text: "scores: " + state.side_names.map((n, s) => `${n} ${state.scores[s]}`).join(", ") }),
      state.over ? "" : el("button", { id: "next-hand", onclick: nextHand }, "Deal the next hand"));
    over.id = "hand-over";
    if (state.over) over.classList.add("game-over");
  }
  if (state.over) setStatus(`Game over: ${state.winner_name} won, ${state.scores.join("–")}.`, "over");
  else if (state.waiting_for === "next_hand") setStatus("The hand is over: see its points below.");
  else if (mine) setStatus(`Your move (${state.phase}).`, "yours");
  else if (state.waiting_for === "you") setStatus("Your move…");
}

document.addEventListener("DOMContentLoaded", () => init().catch(err => showError(err.message)));
