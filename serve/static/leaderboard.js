// The leaderboard: the tournaments under --runs, per game and player count.
"use strict";

const pct = v => (v === null || v === undefined) ? "–" : `${(100 * v).toFixed(1)}%`;
const num = (v, d = 0) => (v === null || v === undefined) ? "–" : v.toFixed(d);
const signed = v => (v === null || v === undefined) ? "–" : (v >= 0 ? "+" : "") + v.toFixed(3);

function table(id, header, rows) {
  return el("table", { class: "numbers", id },
    el("tr", {}, header.map(h => el("th", { text: h }))),
    rows.map(cells => el("tr", {}, cells.map(c => el("td", {}, c)))));
}

async function showGames(tournament, box) {
  try {
    const data = await api(`/api/leaderboard/games?${new URLSearchParams({ path: tournament.path })}`);
    box.replaceChildren(table(null, ["game", "table", "seats (by side)", "scores", "winner", "hands", ""],
      data.games.map(g => [String(g.game), String(g.tbl), g.sides.join(" vs "), g.scores.join("–"), g.winner,
        String(g.hands), data.records
          ? el("a", { href: `/replay?${new URLSearchParams({ path: tournament.path, game: g.game })}`,
                      class: "replay-link" }, "replay")
          : "no record"])));
  } catch (err) { showError(err.message); }
}

function tournamentBox(t) {
  const games = el("div", { class: "games" });
  return el("details", { class: "tournament", "data-path": t.path },
    el("summary", {}, `${t.path} · ${t.agents.join(", ")} · ${t.games} games · seed ${t.seed}`,
      t.records ? " · records saved" : ""),
    el("h4", { text: "ratings in this tournament" }),
    table(null, ["rank", "agent", "rating (95% interval)", "games", "win rate (95% interval)", "points/hand"],
      t.ratings.map(r => [String(r.rank), r.agent, `${num(r.rating)} (${num(r.rating_low)}–${num(r.rating_high)})`,
        String(r.games), `${pct(r.win_rate)} (${pct(r.win_low)}–${pct(r.win_high)})`, num(r.points_per_hand, 3)])),
    el("h4", { text: "pairings (duplicate deals; margin = points per hand minus the opponents')" }),
    table(null, ["agent", "vs", "games", "win rate (95% interval)", "margin/hand (95% interval)"],
      t.pairings.map(p => [p.agent, p.opponents.join(", "), String(p.games),
        `${pct(p.win_rate)} (${pct(p.win_low)}–${pct(p.win_high)})`,
        `${signed(p.margin)} (${signed(p.margin_low)} to ${signed(p.margin_high)})`])),
    el("button", { type: "button", class: "show-games", onclick: () => showGames(t, games) }, "show the games"),
    games);
}

async function init() {
  let data;
  try { data = await api("/api/leaderboard"); } catch (err) { showError(err.message); return; }
  const boards = document.getElementById("boards");
  if (!data.boards.length) {
    boards.append(el("p", { text: "No tournaments under --runs yet: allfours-evaluate heuristic random --out <runs>/my-tournament." }));
  }
  for (const board of data.boards) {
    boards.append(el("section", { class: "board-section", "data-preset": board.preset, "data-players": board.players },
      el("h2", { text: `${board.preset} · ${board.players} players` }),
      el("h3", { text: "ratings over all its tournaments (Bradley–Terry, Elo scale)" }),
      table(null, ["agent", "rating", "95% interval", "games"],
        board.ratings.map(r => [r.agent, num(r.rating), `${num(r.rating_low)}–${num(r.rating_high)}`, String(r.games)])),
      el("h3", { text: `tournaments (${board.tournaments.length})` }),
      board.tournaments.map(tournamentBox)));
  }
}

document.addEventListener("DOMContentLoaded", init);
