// The `subscribe` workload (SPEC §3): every subscription of every session monitors every
// node; data changes are measured by their receive time.
import { AttributeIds, DataChangeFilter, DataChangeTrigger, TimestampsToReturn } from "node-opcua";
import { nowNs, nsSinceUnix } from "./clock.js";
import { Histogram } from "./histogram.js";
import { TICK_MODULUS } from "./model.js";
import { verifyValue } from "./verify.js";

const tickModulus = (name) => (name.startsWith("Signal_") ? TICK_MODULUS : name === "Tick" ? 2 ** 32 : null);

class Measurements {
  constructor(recorder, verify, subscriptions) {
    Object.assign(this, { recorder, verify, phase: null, tickGaps: 0, notifications: 0 });
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
  const moduli = names.map(tickModulus);
  return (_monitoredItem, dataValue, position) => {
    const received = nowNs();
    const previousSeen = lastSeen[position];
    const previousTick = lastTick[position];
    lastSeen[position] = received;
    const modulus = moduli[position];
    const value = dataValue.value?.value;
    let tick = null;
    if (modulus !== null && typeof value === "number") {
      tick = Math.trunc(value) % modulus;
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
      const jump = (((tick - previousTick) % modulus) + modulus) % modulus;
      if (jump > 1) m.tickGaps += jump - 1;
    }
  };
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
  for (let k = 0; k < config.subscriptions; k++) {
    const subscription = await uaSession.session.createSubscription2({
      requestedPublishingInterval: config.publishing_interval_ms,
      requestedLifetimeCount: 3 * keepAliveCount,
      requestedMaxKeepAliveCount: keepAliveCount,
      maxNotificationsPerPublish: 0,
      publishingEnabled: true,
      priority: 1,
    });
    const group = await subscription.monitorItems(itemsToMonitor, parameters, TimestampsToReturn.Both);
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
  await Promise.all(sessions.map((s, i) => subscribeSession(s, i * config.subscriptions, config, m)));
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
      },
      cycle_time_ns: m.cycleTime.sparse(),
      delay_ns: m.delay.sparse(),
    },
  };
}
