// Drives one session's requests through the phases of a run (SPEC §3): closed loop with
// `in_flight` outstanding requests, or open loop at fixed scheduled times where latency
// runs from the scheduled time, so waiting for a free slot is part of it.
import { setTimeout as sleep } from "node:timers/promises";
import { nowNs } from "./clock.js";

const GRACE_NS = 5e9;

/** FIFO of scheduled send times that could not be sent yet (all in_flight slots busy). */
class Backlog {
  constructor() {
    this.items = [];
    this.head = 0;
  }

  get length() {
    return this.items.length - this.head;
  }

  push(value) {
    this.items.push(value);
  }

  shift() {
    const value = this.items[this.head++];
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return value;
  }

  drain() {
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return rest;
  }
}

/**
 * One session's requests in flight, each an entry {k, measured, abandoned}, in the order they
 * were numbered and so by index k: abandon() walks them, and W1's C is the first one's k.
 */
export class InFlight {
  constructor() {
    this.next = 0; // the index of the next request
    this.entries = new Set(); // a Set keeps insertion order, and deletes in O(1)
  }

  /** Numbers the next request and holds it in flight until finished(entry). */
  sent(measured) {
    const entry = { k: this.next++, measured, abandoned: false };
    this.entries.add(entry);
    return entry;
  }

  finished(entry) {
    this.entries.delete(entry);
  }

  /**
   * SPEC §3 W1's C: the lowest request index in flight. Taken as a request is sent, it is that
   * request's own index when none other is; with none in flight, the next index.
   */
  get lowest() {
    for (const entry of this.entries) return entry.k;
    return this.next;
  }

  [Symbol.iterator]() {
    return this.entries.values();
  }
}

export function makePhase(warmupS, durationS) {
  const start = nowNs();
  // Whole nanoseconds, so the record's start_ns minus the timeline's is exactly the warm-up.
  const measureFrom = start + Math.round(warmupS * 1e9);
  const measureUntil = measureFrom + Math.round(durationS * 1e9);
  return { start, measureFrom, measureUntil, graceUntil: measureUntil + GRACE_NS };
}

export class SessionLoad {
  /**
   * send(k) performs request k and resolves to {ok, values, error, check}; check(measured),
   * if present, verifies the returned values (warm-up does the same work) and records the
   * verification only for measured operations. readBack: session 0's WriteReadBack (SPEC §3
   * W1) in a verified write workload, else null. retryMs: the closed loop's wait after a failed
   * request (SPEC §3 Connection loss, with `reconnect`), 0 for none.
   */
  constructor({ send, recorder, phase, inFlight, rate, sessions, index, readBack = null, thinkMs = 0, retryMs = 0 }) {
    Object.assign(this, { send, recorder, phase, inFlight, rate, sessions, index, readBack, thinkMs, retryMs });
    this.pending = new InFlight();
    this.backlog = new Backlog();
  }

  isMeasured(referenceNs) {
    return referenceNs >= this.phase.measureFrom && referenceNs < this.phase.measureUntil;
  }

  async #dispatch(referenceNs) {
    const entry = this.pending.sent(this.isMeasured(referenceNs));
    const k = entry.k;
    const lowest = this.readBack?.sampled(k, entry.measured) ? this.pending.lowest : -1;
    // SPEC §6 send_lag_ns: the request goes to the SDK's call right below.
    if (entry.measured && this.rate !== null) this.recorder.sent(nowNs() - referenceNs);
    let outcome;
    try {
      outcome = await this.send(k);
    } catch (error) {
      outcome = { ok: false, values: 0, error: error?.message ?? String(error) };
    }
    const completedNs = nowNs();
    const latency = completedNs - referenceNs;
    this.pending.finished(entry);
    if (lowest >= 0 && outcome.ok && !entry.abandoned) this.readBack.start(k, lowest);
    if (outcome.ok) this.recorder.timeline.completed(completedNs, outcome.values);
    const measured = entry.measured && !entry.abandoned;
    if (measured) this.recorder.operation(latency, outcome.ok, outcome.values, outcome.error, referenceNs);
    if (outcome.ok && outcome.check && !entry.abandoned) outcome.check(measured);
    return outcome.ok;
  }

  /**
   * Resolves when nothing measured is outstanding any more, read-backs included, or at the end
   * of the grace period.
   */
  run() {
    const requests = this.rate === null ? this.#closedLoop() : this.#openLoop();
    const done = this.readBack ? requests.then(() => this.readBack.settled()) : requests;
    let timer;
    const grace = new Promise((resolve) => {
      timer = setTimeout(resolve, Math.max(0, (this.phase.graceUntil - nowNs()) / 1e6));
    });
    return Promise.race([done, grace]).finally(() => clearTimeout(timer));
  }

  #closedLoop() {
    const worker = async () => {
      for (let t = nowNs(); t < this.phase.measureUntil; t = nowNs()) {
        const ok = await this.#dispatch(t);
        // A failed request's slot waits retryMs (a dead connection is not spun on), or think_ms.
        const waitMs = ok ? this.thinkMs : Math.max(this.thinkMs, this.retryMs);
        if (waitMs > 0 && !(await this.#wait(waitMs))) return;
      }
    };
    return Promise.all(Array.from({ length: this.inFlight }, worker));
  }

  /**
   * SPEC §3 think_ms: the slot sleeps waitMs after a response (timers may fire a little
   * early, so it sleeps again for what is left). False when the wait would outlast the
   * measured phase, in which the slot sends nothing more.
   */
  async #wait(waitMs) {
    const until = nowNs() + waitMs * 1e6;
    if (until >= this.phase.measureUntil) return false;
    for (let left = until - nowNs(); left > 0; left = until - nowNs()) await sleep(Math.ceil(left / 1e6));
    return true;
  }

  #openLoop() {
    // Sessions share the total rate, each on its own evenly offset schedule.
    const intervalNs = (1e9 * this.sessions) / this.rate;
    let nextAt = this.phase.start + (this.index * 1e9) / this.rate;
    let free = this.inFlight;
    return new Promise((resolve) => {
      const finished = () => nextAt >= this.phase.measureUntil && this.backlog.length === 0 && free === this.inFlight;
      const pump = () => {
        const t = nowNs();
        for (; nextAt <= t && nextAt < this.phase.measureUntil; nextAt += intervalNs) this.backlog.push(nextAt);
        while (free > 0 && this.backlog.length > 0) {
          free -= 1;
          this.#dispatch(this.backlog.shift()).then(() => {
            free += 1;
            pump();
            if (finished()) resolve();
          });
        }
      };
      const tick = () => {
        pump();
        if (nextAt < this.phase.measureUntil) setTimeout(tick, Math.max(0, (nextAt - nowNs()) / 1e6));
        else if (finished()) resolve();
      };
      tick();
    });
  }

  /** After the grace period: whatever measured is still outstanding or unsent has failed. */
  abandon() {
    for (const entry of this.pending) {
      entry.abandoned = true;
      if (entry.measured) this.recorder.operation(0, false, 0, "no response within 5 s after the measured phase");
    }
    for (const scheduledAt of this.backlog.drain()) {
      if (this.isMeasured(scheduledAt)) this.recorder.operation(0, false, 0, "not sent within 5 s after the measured phase");
    }
    this.readBack?.abandon();
  }
}
