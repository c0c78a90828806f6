package org.uabench.milo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.milo.opcua.sdk.client.UaSession;
import org.eclipse.milo.opcua.stack.core.types.builtin.ByteString;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.eclipse.milo.opcua.stack.core.types.structured.SignedSoftwareCertificate;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3 Connection loss as Milo's SessionActivityListener, onTransferFailed and onStatusChanged
 * tell it.
 */
class ConnectionTest {

  /** A session as Milo's listener sees it: only its id matters here. */
  private static UaSession session(int id) {
    NodeId sessionId = new NodeId(1, id);
    return new UaSession() {
      @Override
      public NodeId getAuthenticationToken() {
        return NodeId.NULL_VALUE;
      }

      @Override
      public NodeId getSessionId() {
        return sessionId;
      }

      @Override
      public String getSessionName() {
        return "s" + id;
      }

      @Override
      public Double getSessionTimeout() {
        return 0.0;
      }

      @Override
      public UInteger getMaxRequestSize() {
        return UInteger.MIN;
      }

      @Override
      public ByteString getServerNonce() {
        return ByteString.NULL_VALUE;
      }

      @Override
      public ByteString getServerCertificate() {
        return ByteString.NULL_VALUE;
      }

      @Override
      public SignedSoftwareCertificate[] getServerSoftwareCertificates() {
        return new SignedSoftwareCertificate[0];
      }

      @Override
      public Object getAttribute(String name) {
        return null;
      }

      @Override
      public Object setAttribute(String name, Object value) {
        return null;
      }

      @Override
      public Object removeAttribute(String name) {
        return null;
      }
    };
  }

  private static ObjectNode json(Connection connection) {
    return connection.toJson(new ClientRole.WallClock());
  }

  private static String outcome(JsonNode event) {
    return event.get("subscriptions").isNull() ? null : event.get("subscriptions").asText();
  }

  @Test
  void aRunWithoutLossHasNoEvents() {
    Connection connection = new Connection(2, false);
    connection.watch(0).onSessionActive(session(1)); // the first activation is no restoration
    ObjectNode record = json(connection);
    assertEquals(0, record.get("lost").asLong());
    assertEquals(0, record.get("restored").asLong());
    assertEquals(0, record.get("events").size());
    assertEquals(0, record.get("truncated").asLong());
  }

  @Test
  void lostOncePerLossThenRestoredWithoutSubscriptionsOutsideSubscribe() {
    Connection connection = new Connection(2, false);
    Connection.Watch watch = connection.watch(1);
    watch.onSessionInactive(session(1));
    watch.onSessionInactive(session(1));
    watch.onSessionActive(session(2));
    ObjectNode record = json(connection);
    assertEquals(1, record.get("lost").asLong());
    assertEquals(1, record.get("restored").asLong());
    JsonNode events = record.get("events");
    assertEquals("lost", events.get(0).get("state").asText());
    assertEquals(1, events.get(0).get("session").asInt());
    assertEquals("restored", events.get(1).get("state").asText());
    assertEquals(null, outcome(events.get(1)));
    assertTrue(events.get(0).get("t_ns").asLong() <= events.get(1).get("t_ns").asLong());
  }

  /** Session 0 of a subscribe run with `subscriptions` subscriptions, lost from session 1. */
  private static Connection.Watch lostWithSubscriptions(Connection connection, int subscriptions) {
    Connection.Watch watch = connection.watch(0);
    for (int n = 0; n < subscriptions; n++) {
      watch.subscribed();
    }
    watch.onSessionInactive(session(1));
    return watch;
  }

  @Test
  void theSameSessionReactivatedKeepsItsSubscriptions() {
    Connection connection = new Connection(1, true);
    Connection.Watch watch = lostWithSubscriptions(connection, 1);
    watch.onSessionActive(session(1));
    assertEquals("transferred", outcome(json(connection).get("events").get(1)));
  }

  @Test
  void aNewSessionMovedThemUnlessATransferFailed() {
    Connection connection = new Connection(1, true);
    Connection.Watch watch = lostWithSubscriptions(connection, 2);
    watch.onSessionActive(session(2));
    watch.onSessionInactive(session(2));
    watch.dropped();
    watch.onSessionActive(session(3));
    JsonNode events = json(connection).get("events");
    assertEquals("transferred", outcome(events.get(1)));
    assertEquals("lost", outcome(events.get(3)));
  }

  @Test
  void aTransferFailureDeliveredAfterTheRestorationStillSaysLost() {
    Connection connection = new Connection(1, true);
    Connection.Watch watch = lostWithSubscriptions(connection, 1);
    watch.onSessionActive(session(2));
    watch.dropped(); // Milo's subscription queue delivered it just after onSessionActive
    assertEquals("lost", outcome(json(connection).get("events").get(1)));
    // Gone for good: a later restoration, even of the same session, has none to keep.
    watch.onSessionInactive(session(2));
    watch.onSessionActive(session(2));
    assertEquals("lost", outcome(json(connection).get("events").get(3)));
  }

  @Test
  void aSubscriptionTimedOutInTheLossIsLostEvenWithTheSameSession() {
    Connection connection = new Connection(1, true);
    Connection.Watch watch = lostWithSubscriptions(connection, 1);
    watch.onSessionActive(session(1));
    watch.dropped(); // onStatusChanged Bad_Timeout, in the first PublishResponse after re-activation
    assertEquals("lost", outcome(json(connection).get("events").get(1)));
  }

  @Test
  void atMostOneHundredEventsTheRestCounted() {
    Connection connection = new Connection(1, false);
    Connection.Watch watch = connection.watch(0);
    for (int n = 0; n < 60; n++) {
      watch.onSessionInactive(session(n));
      watch.onSessionActive(session(n + 1));
    }
    ObjectNode record = json(connection);
    assertEquals(Connection.MAX_EVENTS, record.get("events").size());
    assertEquals(20, record.get("truncated").asLong());
    assertEquals(60, record.get("lost").asLong());
    assertEquals(60, record.get("restored").asLong());
  }
}
