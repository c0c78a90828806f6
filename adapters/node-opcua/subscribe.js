// The `subscribe` workload (SPEC §3): every subscription of every session monitors every
// node; data changes are measured by their receive time.
import {
  AttributeIds, CreateMonitoredItemsResponse, CreateSubscriptionResponse, DataChangeFilter, DataChangeTrigger, TimestampsToReturn,
} from "node-opcua";
import { nowNs, nsSinceUnix } from "./clock.js";
import { Histogram } from "./histogram.js";
import { SESSION_TIMEOUT_MS } from "./session.js";
import { TICK_MODULUS } from "./model.js";
import { carriesTick, tickStep } from "./ticks.js";
import { verifyValue } from "./verify.js";

class Measurements {
  constructor(recorder, verify, subscriptions) {
    Object.assign(this, { recorder, verify, phase: null, tickGaps: 0, duplicates: 0, notifications: 0 });
    this.cycleTime = new Histogram();
    this.delay = new Histogram();
    this.updates = new Array(subscriptions).fill(0);
  }

  isMeasured(receivedNs) {
    return this.phase !== null && receivedNs >= this.phase.measureFrom && receivedNs < this.phase.measureUntil;
  }
}

/** Per-subscription state: when each item was last updated and which tick it carried. */
function dataChangeHandler(number, names, m) {
  const lastSeen = new Array(names.length).fill(null);
  const lastTick = new Array(names.length).fill(null);
  const ticked = names.map(carriesTick);
  return (_monitoredItem, dataValue, position) => {
    const received = nowNs();
    const previousSeen = lastSeen[position];
    const previousTick = lastTick[position];
    lastSeen[position] = received;
    const value = dataValue.value?.value;
    let tick = null;
    if (ticked[position] && typeof value === "number") {
      // SPEC §3: a Signal carries its tick mod 16384; a Tick is taken mod 16384 too.
      tick = Math.trunc(value) % TICK_MODULUS;
      lastTick[position] = tick;
    }
    const ok = dataValue.statusCode.isGood();
    if (ok) m.recorder.timeline.completed(received, 1);
    if (!m.isMeasured(received)) return;
    // SPEC §3: each data change is an operation (no latency); a Bad status is a failed one.
    m.notifications += 1;
    m.recorder.notification(ok, ok ? null : `${names[position]}: ${dataValue.statusCode.name}`);
    if (!ok) return;
    m.updates[number] += 1;
    if (m.verify) m.recorder.verification(verifyValue(names[position], dataValue.value));
    if (previousSeen !== null) m.cycleTime.record(received - previousSeen);
    if (dataValue.sourceTimestamp) {
      const delay = nsSinceUnix(received, dataValue.sourceTimestamp.getTime(), (dataValue.sourcePicoseconds ?? 0) / 1000);
      m.delay.record(Math.max(1, delay));
    }
    if (tick !== null && previousTick !== null) {
      const [gaps, duplicates] = tickStep(previousTick, tick);
      m.tickGaps += gaps;
      m.duplicates += duplicates;
    }
  };
}

/**
 * What became of one session's subscriptions when node-opcua restores it (SPEC §3 Connection
 * loss). Its repair reactivates the session (or creates a new one and asks TransferSubscriptions)
 * and republishes; a subscription the server no longer has it creates anew, with the same
 * monitored items. The client reports every response it receives (receive_response), so the
 * CreateSubscription and CreateMonitoredItems answers of that repair tell a recreation; a
 * failed CreateSubscription is the subscription's internal_error, and one the repair gave up
 * on is no longer registered with the session's publish engine (subscriptionCount).
 */
class SubscriptionFate {
  constructor(uaSession, goodItems) {
    Object.assign(this, { session: uaSession.session, subscriptions: [], goodItems, down: false });
    this.#reset();
    uaSession.client.on("receive_response", (response) => {
      if (!this.down) return;
      if (response instanceof CreateSubscriptionResponse) this.created += 1;
      else if (response instanceof CreateMonitoredItemsResponse) {
        this.items += (response.results ?? []).filter((result) => result.statusCode.isGood()).length;
      }
    });
  }

  /** A subscription of the session, created with `goodItems` good monitored items or more. */
  add(subscription) {
    this.subscriptions.push(subscription);
    subscription.on("internal_error", () => {
      if (this.down) this.failed += 1;
    });
  }

  #reset() {
    this.created = 0;
    this.items = 0;
    this.failed = 0;
  }

  /** The session was lost: what its repair does from now on is counted. */
  lost() {
    this.down = true;
    this.#reset();
  }

  /** The session is restored (session_restored): transferred, recreated or lost. */
  restored() {
    this.down = false;
    const gone = this.failed > 0
      || this.session.subscriptionCount < this.subscriptions.length
      || this.subscriptions.some((subscription) => !subscription.isActive)
      || this.items < this.created * this.goodItems;
    if (gone) return "lost";
    return this.created > 0 ? "recreated" : "transferred";
  }
}

// SPEC §3 subscribe: a lifetime need outlive no loss longer than this, whatever the session timeout.
const LIFETIME_CAP_MS = 600000;
const UINT32_MAX = 0xffffffff; // RequestedLifetimeCount is a UInt32

/**
 * SPEC §3 subscribe: the lifetime count a subscription asks for. Its lifetime (count × interval)
 * is as long as the session timeout asked for, at most 600 s, so a connection lost for less finds
 * the subscription still on the server; and at least three keep-alives (OPC 10000-4 §5.13.2).
 */
export function lifetimeCount(sessionTimeoutMs, intervalMs, keepAliveCount) {
  const wanted = Math.ceil(Math.min(sessionTimeoutMs, LIFETIME_CAP_MS) / intervalMs);
  return Math.min(Math.max(3 * keepAliveCount, wanted), UINT32_MAX);
}

async function subscribeSession(uaSession, first, config, m) {
  const names = config.nodes;
  const itemsToMonitor = names.map((name) => ({ nodeId: uaSession.nodeId(name), attributeId: AttributeIds.Value }));
  const parameters = {
    samplingInterval: config.sampling_interval_ms,
    queueSize: config.queue_size,
    discardOldest: true,
    filter: new DataChangeFilter({ trigger: DataChangeTrigger.StatusValue }),
  };
  // Keep-alives about every 10 s; node-opcua insists that stays below the session timeout.
  const keepAliveCount = Math.max(3, Math.ceil(10000 / config.publishing_interval_ms));
  const lifetime = lifetimeCount(SESSION_TIMEOUT_MS, config.publishing_interval_ms, keepAliveCount);
  const fate = new SubscriptionFate(uaSession, names.length);
  uaSession.subscriptions = fate;
  for (let k = 0; k < config.subscriptions; k++) {
    const subscription = await uaSession.session.createSubscription2({
      requestedPublishingInterval: config.publishing_interval_ms,
      requestedLifetimeCount: lifetime,
      requestedMaxKeepAliveCount: keepAliveCount,
      maxNotificationsPerPublish: 0,
      publishingEnabled: true,
      priority: 1,
    });
    fate.add(subscription);
    const group = await subscription.monitorItems(itemsToMonitor, parameters, TimestampsToReturn.Both);
    const good = group.monitoredItems.filter((item) => !item.statusCode || item.statusCode.isGood()).length;
    fate.goodItems = Math.min(fate.goodItems, good);
    group.monitoredItems.forEach((item, position) => {
      // A monitored item the server refuses is a failed operation (SPEC §3).
      if (item.statusCode && !item.statusCode.isGood()) m.recorder.notification(false, `${names[position]}: ${item.statusCode.name}`);
    });
    group.on("changed", dataChangeHandler(first + k, names, m));
  }
}

/** Runs the workload over open sessions; returns the extra result fields of SPEC §6. */
export async function runSubscribe(sessions, config, recorder, makePhase) {
  const m = new Measurements(recorder, config.verify, sessions.length * config.subscriptions);
  await Promise.all(sessions.map(async (s, i) => {
    try {
      await subscribeSession(s, i * config.subscriptions, config, m);
    } catch (error) {
      // With reconnect the run goes on whatever happens to the connection (SPEC §3): a
      // subscription that could not be set up is a failed operation, and no notification comes.
      if (!config.reconnect) throw error;
      recorder.notification(false, `subscribe: ${String(error?.message ?? error).split("\n")[0]}`);
    }
  }));
  const phase = makePhase(config.warmup_s, config.duration_s);
  recorder.timeline.begin(phase.start, phase.measureUntil - phase.start);
  m.phase = phase;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, (phase.measureUntil - nowNs()) / 1e6)));
  const seconds = config.duration_s;
  return {
    phase,
    extra: {
      subscription: {
        notifications: m.notifications,
        values_per_s: recorder.values / seconds,
        updates_per_subscription: {
          min: m.updates.reduce((a, b) => Math.min(a, b)),
          max: m.updates.reduce((a, b) => Math.max(a, b)),
        },
        tick_gaps: m.tickGaps,
        duplicates: m.duplicates,
      },
      cycle_time_ns: m.cycleTime.sparse(),
      delay_ns: m.delay.sparse(),
    },
  };
}
