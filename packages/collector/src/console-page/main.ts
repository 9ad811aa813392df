import { ConsoleApiError, consoleApi } from "./api.js";
import { renderCampaign } from "./campaign-view.js";
import { h, notice } from "./dom.js";
import { renderOverview } from "./overview.js";
import { renderRound } from "./round-view.js";

/**
 * The operator console: reads the admin token (kept in this tab's
 * sessionStorage only, sent as `Authorization: Bearer`), shows the storage's
 * health, and renders the page the hash names: `#/` (campaigns and rounds),
 * `#/campaigns/<id>`, `#/rounds/<id>[?campaign=<id>]`.
 */

const TOKEN_KEY = "calm-ldp-console-token";
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const main = byId<HTMLElement>("main");
const tokenInput = byId<HTMLInputElement>("token");
const health = byId<HTMLElement>("health");

const token = (): string => sessionStorage.getItem(TOKEN_KEY) ?? "";

/** An error as the page shows it: what the collector said, and what to do. */
function failure(error: unknown): HTMLElement {
  if (!(error instanceof ConsoleApiError)) return notice("error", "The console failed:", String(error));
  if (error.reason === "storage-unavailable")
    return notice(
      "error",
      "Storage unavailable.",
      "The collector answered 503 storage-unavailable: its database is not answering. The collector retries by itself; reload in a few seconds.",
    );
  if (error.reason === "missing-token" || error.reason === "wrong-token")
    return notice(
      "error",
      "Admin token refused.",
      `${error.message}. Type the collector's admin token above.`,
    );
  if (error.reason === "unreachable") return notice("error", "Collector unreachable.", error.message);
  return notice("error", `${error.reason} (HTTP ${error.status}):`, error.message);
}

/**
 * The storage's state from `GET /readyz` in the header (public; it needs no
 * token). Cost: one readiness probe of the database per page shown.
 */
async function showHealth(): Promise<void> {
  try {
    const answer = await consoleApi("").health();
    const ok = answer.status === "ok";
    health.textContent = ok
      ? `storage: ${answer.storage} ok`
      : `storage unavailable (${answer.backend ?? "?"}): ${answer.message ?? ""}`;
    health.dataset.state = ok ? "ok" : "down";
  } catch {
    health.textContent = "collector unreachable";
    health.dataset.state = "down";
  }
}

let rendering = 0;

/** Render the page the hash names; a later navigation wins over a slower earlier one. */
async function render(): Promise<void> {
  const ticket = ++rendering;
  void showHealth();
  const [path = "/", query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  main.dataset.state = "loading";
  main.replaceChildren(h("p", { class: "loading" }, "loading…"));
  let content: (Node | string)[];
  if (!token()) {
    content = [
      h("h1", {}, "Operator console"),
      notice("empty", "No admin token.", "Type the collector's admin token above: every data call sends it."),
    ];
  } else {
    const api = consoleApi(token());
    const campaign = new RegExp(`^/campaigns/(${UUID})$`).exec(path);
    const round = new RegExp(`^/rounds/(${UUID})$`).exec(path);
    const parent = params.get("campaign");
    try {
      if (campaign) content = await renderCampaign(api, campaign[1]!, failure);
      else if (round)
        content = await renderRound(
          api,
          round[1]!,
          parent && new RegExp(`^${UUID}$`).test(parent) ? parent : null,
          () => void render(),
          failure,
        );
      else content = await renderOverview(api);
    } catch (error) {
      content = [h("h1", {}, "Operator console"), failure(error)];
    }
  }
  if (ticket !== rendering) return;
  main.replaceChildren(...content);
  main.dataset.state = "ready";
}

byId<HTMLFormElement>("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
  tokenInput.value = "";
  void render();
});
byId<HTMLButtonElement>("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  void render();
});
window.addEventListener("hashchange", () => void render());
void render();
