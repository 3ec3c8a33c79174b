// The replay page: a game record stepped decision by decision, as one seat saw it or with every hand open.
"use strict";

const replay = { source: null, step: 0, steps: 0, observer: "all", state: null, loading: false };

function sourceFromQuery() {
  // ?id=<replay id> (an uploaded or played game) or ?path=<tournament folder>&game=<n> (under --runs).
  const query = new URLSearchParams(window.location.search);
  if (query.get("id")) return { id: query.get("id") };
  if (query.get("path") && query.get("game") !== null) return { path: query.get("path"), game: query.get("game") };
  return null;
}

function stateUrl() {
  const params = new URLSearchParams({ step: replay.step, seat: replay.observer });
  if (replay.source.id) return `/api/replays/${encodeURIComponent(replay.source.id)}?${params}`;
  params.set("path", replay.source.path);
  params.set("game", replay.source.game);
  return `/api/runs/replay?${params}`;
}

function pageUrl() {
  const params = new URLSearchParams(replay.source);
  params.set("step", replay.step);
  params.set("seat", replay.observer);
  return `/replay?${params}`;
}

async function load(step) {
  replay.step = Math.max(0, Math.min(step, replay.steps || step));
  try {
    replay.state = await api(stateUrl());
  } catch (err) { showError(err.message); return; }
  showError("");
  replay.steps = replay.state.steps;
  replay.step = replay.state.step;
  history.replaceState(null, "", pageUrl());
  render();
}

function render() {
  const state = replay.state;
  document.getElementById("replay").hidden = false;
  const observer = document.getElementById("observer");
  if (observer.options.length !== state.players + 1) {
    observer.replaceChildren(el("option", { value: "all" }, "all hands open"),
      ...state.seats.map(s => el("option", { value: s.seat }, `player_${s.seat}`)));
  }
  observer.value = replay.observer;
  const slider = document.getElementById("slider");
  slider.max = state.steps;
  slider.value = state.step;
  document.getElementById("position").textContent = `decision ${state.step} of ${state.steps}`;
  document.getElementById("position").dataset.step = state.step;
  document.getElementById("link").value = window.location.origin + pageUrl();
  const previous = state.step ? state.decisions[state.step - 1] : null;
  const next = state.step < state.steps ? state.decisions[state.step] : null;
  document.getElementById("current").textContent =
    (previous ? `last: player_${previous.seat} ${previous.move}. ` : "the deal. ") +
    (next ? `next: player_${next.seat} ${next.move}.` : (state.over ? `game over: ${state.winner_name} won.` : "end of the record."));
  const agents = {};
  (state.seats_agents || []).forEach((name, seat) => { agents[seat] = name; });
  const observerSeat = replay.observer === "all" ? null : Number(replay.observer);
  const labels = observerSeat === null ? {} : { [observerSeat]: "view" };
  document.getElementById("board").replaceChildren(renderInfo(state), renderTrick(state),
    renderSeats(state, { labels, agents }));
  const decisions = el("ol", { id: "decisions", class: "decisions", start: 1 },
    state.decisions.map((d, i) => el("li", { class: i === state.step - 1 ? "now" : "", "data-step": i + 1,
      onclick: () => load(i + 1) }, `player_${d.seat} ${d.move}`)));
  document.getElementById("history").replaceChildren(renderLog(state), renderHands(state),
    el("div", { class: "decision-list" }, el("h3", { text: "decisions" }), decisions));
  const now = decisions.querySelector(".now");
  if (now) now.scrollIntoView({ block: "nearest" });
}

async function upload(event) {
  event.preventDefault();
  const file = document.getElementById("file").files[0];
  if (!file) { showError("choose a record file first"); return; }
  try {
    const made = await api("/api/replays", { method: "POST", body: await file.text() });
    window.location.href = made.url;
  } catch (err) { showError(err.message); }
}

function init() {
  document.getElementById("upload").addEventListener("submit", upload);
  document.getElementById("first").addEventListener("click", () => load(0));
  document.getElementById("back").addEventListener("click", () => load(replay.step - 1));
  document.getElementById("forward").addEventListener("click", () => load(replay.step + 1));
  document.getElementById("last").addEventListener("click", () => load(replay.steps));
  document.getElementById("slider").addEventListener("change", e => load(Number(e.target.value)));
  document.getElementById("observer").addEventListener("change", e => { replay.observer = e.target.value; load(replay.step); });
  document.addEventListener("keydown", e => {
    if (!replay.source || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") load(replay.step + 1);
    else if (e.key === "ArrowLeft") load(replay.step - 1);
    else if (e.key === "Home") load(0);
    else if (e.key === "End") load(replay.steps);
  });
  replay.source = sourceFromQuery();
  if (!replay.source) return;
  const query = new URLSearchParams(window.location.search);
  replay.observer = query.get("seat") || "all";
  const step = query.get("step");
  load(step === null ? 0 : Number(step));
}

document.addEventListener("DOMContentLoaded", init);
