// SPEC §3 "Client — connection loss" and §6 `connection`: per session whether it is down, and
// the events of its losses and restorations (the first 100, the rest counted in `truncated`),
// as the reference's uabench_contract.Connection keeps them.
import { nowNs, wallNs } from "./clock.js";

export const CONNECTION_EVENTS = 100;
// SPEC §3: a closed-loop slot's wait after a failed request when the run goes on (reconnect).
export const RETRY_MS = 10;

export class Connection {
  constructor(sessions) {
    this.down = new Array(sessions).fill(false);
    this.events = [];
    this.lost = 0;
    this.restored = 0;
    this.truncated = 0;
  }

  isDown(session) {
    return this.down[session];
  }

  /** A session already lost is not lost again. tNs: Unix wall-clock ns (BigInt). */
  markLost(session, tNs = wallNs(nowNs())) {
    if (this.down[session]) return;
    this.down[session] = true;
    this.lost += 1;
    this.#add(tNs, session, "lost", null);
  }

  /** subscriptions: in `subscribe`, what became of the session's subscriptions, else null. */
  markRestored(session, subscriptions = null, tNs = wallNs(nowNs())) {
    if (!this.down[session]) return;
    this.down[session] = false;
    this.restored += 1;
    this.#add(tNs, session, "restored", subscriptions);
  }

  #add(tNs, session, state, subscriptions) {
    if (this.events.length < CONNECTION_EVENTS) this.events.push({ t_ns: tNs, session, state, subscriptions });
    else this.truncated += 1;
  }

  record() {
    return { lost: this.lost, restored: this.restored, events: this.events, truncated: this.truncated };
  }
}
