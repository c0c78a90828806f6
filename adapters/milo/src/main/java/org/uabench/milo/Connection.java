package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.milo.opcua.sdk.client.SessionActivityListener;
import org.eclipse.milo.opcua.sdk.client.UaSession;

/**
 * SPEC §3 Connection loss, §6 `connection`: each session's losses and restorations, as Milo tells
 * them. Milo's OpcUaClient reconnects by itself, always (there is no setting to turn it on or
 * off): its SessionFsm leaves Active when the SecureChannel closes (ConnectionLost), a keep-alive
 * Read fails too often or a service fault says the session is gone, tries ActivateSession on the
 * same session over a new channel and, when the server no longer knows it, creates a new session
 * and moves the subscriptions to it with TransferSubscriptions. Leaving and re-entering Active is
 * what its SessionActivityListener reports: onSessionInactive is `lost`, onSessionActive
 * `restored`.
 *
 * <p>What became of the subscriptions (subscribe workload), as Milo tells it:
 *
 * <ul>
 *   <li>the same session re-activated: the server's subscriptions went on with it, `transferred`
 *       (kept);
 *   <li>a new session: Milo called TransferSubscriptions; a subscription it could not move gets
 *       OpcUaSubscription.SubscriptionListener#onTransferFailed, and Milo drops it
 *       (OpcUaSubscription#reset removes it from the client; Milo 1.1.2 does not create it again,
 *       that is left to the application, and this adapter does not): `lost`. With no such
 *       failure they were moved: `transferred`;
 *   <li>either way, a subscription whose lifetime the server ended while no PublishRequest reached
 *       it (during the loss) and that says so, a StatusChangeNotification Bad_Timeout
 *       (SubscriptionListener#onStatusChanged), is dropped by Milo the same way: `lost`. A server
 *       that deletes it without one (open62541 when no PublishRequest is queued) leaves Milo
 *       unaware (its PublishingManager takes the Bad_NoSubscription faults silently), which is why
 *       SubscribeWorkload requests a lifetime of at least the session timeout.
 * </ul>
 *
 * <p>Milo delivers both on the subscription's own queue, so they may come just after
 * onSessionActive: the restored event's outcome is then corrected when they arrive. Milo 1.1.2
 * never re-creates subscriptions, so `recreated` is never said.
 */
final class Connection {

  static final int MAX_EVENTS = 100;

  /** One event; a restored event's subscriptions may be settled just after it (see above). */
  private static final class Event {
    final long nanoTime;
    final int session;
    final boolean lost;
    String subscriptions;

    Event(long nanoTime, int session, boolean lost, String subscriptions) {
      this.nanoTime = nanoTime;
      this.session = session;
      this.lost = lost;
      this.subscriptions = subscriptions;
    }
  }

  private final boolean subscribe;
  private final Watch[] watches;
  // All guarded by this.
  private final List<Event> events = new ArrayList<>();
  private long lost;
  private long restored;
  private long truncated;

  Connection(int sessions, boolean subscribe) {
    this.subscribe = subscribe;
    this.watches = new Watch[sessions];
    for (int s = 0; s < sessions; s++) {
      watches[s] = new Watch(s);
    }
  }

  /** Watches every session (its client's SessionActivityListener) from now on. */
  static Connection watching(List<Sessions.Session> sessions, boolean subscribe) {
    Connection connection = new Connection(sessions.size(), subscribe);
    for (Sessions.Session session : sessions) {
      session.client().addSessionActivityListener(connection.watch(session.index()));
    }
    return connection;
  }

  /** The watch of session `index`, for its subscriptions' listeners. */
  Watch watch(int index) {
    return watches[index];
  }

  private Event add(long nanoTime, int session, boolean lost, String subscriptions) {
    Event event = new Event(nanoTime, session, lost, subscriptions);
    if (events.size() < MAX_EVENTS) {
      events.add(event);
    } else {
      truncated++;
    }
    if (lost) {
      this.lost++;
    } else {
      restored++;
    }
    return event;
  }

  /** SPEC §6 `connection`, instants on the record's wall clock. */
  synchronized ObjectNode toJson(ClientRole.WallClock clock) {
    ObjectNode json = Protocol.object();
    json.put("lost", lost);
    json.put("restored", restored);
    ArrayNode list = json.putArray("events");
    for (Event event : events) {
      ObjectNode item = list.addObject();
      item.put("t_ns", clock.wallNs(event.nanoTime));
      item.put("session", event.session);
      item.put("state", event.lost ? "lost" : "restored");
      if (event.subscriptions == null) {
        item.putNull("subscriptions");
      } else {
        item.put("subscriptions", event.subscriptions);
      }
    }
    json.put("truncated", truncated);
    return json;
  }

  /** One session's state, fed by Milo's SessionActivityListener and its subscriptions. */
  final class Watch implements SessionActivityListener {
    private final int session;
    // Guarded by Connection.this.
    private boolean down;
    // Since the last loss: a subscription was dropped; the restoration (subscribe workload).
    private boolean dropped;
    private Event restoration;
    private int subscriptionsKept;

    Watch(int session) {
      this.session = session;
    }

    /** One more subscription of this session, created on the server. */
    void subscribed() {
      synchronized (Connection.this) {
        subscriptionsKept++;
      }
    }

    @Override
    public void onSessionInactive(UaSession inactive) {
      long now = System.nanoTime();
      synchronized (Connection.this) {
        if (down) {
          return;
        }
        down = true;
        dropped = false;
        restoration = null;
        add(now, session, true, null);
      }
    }

    @Override
    public void onSessionActive(UaSession active) {
      long now = System.nanoTime();
      synchronized (Connection.this) {
        if (!down) {
          return; // the first activation, or one already counted
        }
        down = false;
        String subscriptions = null;
        if (subscribe) {
          // Kept with the session, or moved to a new one, unless Milo dropped them (now or at
          // an earlier loss).
          subscriptions = dropped || subscriptionsKept <= 0 ? "lost" : "transferred";
        }
        Event event = add(now, session, false, subscriptions);
        restoration = subscribe ? event : null;
      }
    }

    /**
     * Milo's onTransferFailed, or onStatusChanged Bad_Timeout, for one of this session's
     * subscriptions: Milo has dropped it, no notification of it will come again.
     */
    void dropped() {
      synchronized (Connection.this) {
        dropped = true;
        subscriptionsKept--;
        if (restoration != null) {
          restoration.subscriptions = "lost";
        }
      }
    }
  }
}
