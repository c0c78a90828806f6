package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.ubyte;
import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.eclipse.milo.opcua.sdk.client.DiscoveryClient;
import org.eclipse.milo.opcua.sdk.client.OpcUaClient;
import org.eclipse.milo.opcua.sdk.client.OpcUaClientConfig;
import org.eclipse.milo.opcua.sdk.client.OpcUaClientConfigBuilder;
import org.eclipse.milo.opcua.stack.core.Stack;
import org.eclipse.milo.opcua.stack.core.UaException;
import org.eclipse.milo.opcua.stack.core.security.SecurityPolicy;
import org.eclipse.milo.opcua.stack.core.types.builtin.ByteString;
import org.eclipse.milo.opcua.stack.core.types.builtin.LocalizedText;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UShort;
import org.eclipse.milo.opcua.stack.core.types.enumerated.ApplicationType;
import org.eclipse.milo.opcua.stack.core.types.enumerated.MessageSecurityMode;
import org.eclipse.milo.opcua.stack.core.types.structured.ApplicationDescription;
import org.eclipse.milo.opcua.stack.core.types.structured.EndpointDescription;
import org.eclipse.milo.opcua.stack.core.util.EndpointUtil;
import org.eclipse.milo.opcua.stack.transport.client.tcp.OpcTcpClientTransportConfigBuilder;
import org.uabench.milo.Protocol.ConnectException;

/**
 * Opens the client's sessions: one OpcUaClient (one SecureChannel + Session) each, against the
 * endpoint the server describes for the configured policy and mode.
 */
final class Sessions {

  // Milo's own default (also what its reconnection uses for each new TCP connection).
  private static final int CONNECT_TIMEOUT_MS = 5_000;
  // Milo's default is 60 s; SPEC §2 wants a session set up (or a `connect` error) within 10 s,
  // and the same bound is what a request lost with its connection waits before it fails. Milo's
  // reconnection settings (keep-alive, retry waits) are its defaults (SPEC §3 Connection loss).
  private static final int REQUEST_TIMEOUT_MS = 10_000;
  // SPEC §3 request_timeout_ms replaces all of these when set (a slow server: emulation), so that
  // no step of a session's set-up gives up before it, nor its keep-alive Read (clientConfig). Not
  // reached by it: DiscoveryClient's GetEndpoints, whose OpenSecureChannel and request Milo fixes
  // at 60 s.

  /**
   * One connected session, the index of urn:uabench:model on its server, and how long the
   * session took to set up (GetEndpoints, OpenSecureChannel, CreateSession, ActivateSession).
   */
  record Session(int index, OpcUaClient client, UShort namespaceIndex, long setupNs) {
    NodeId nodeId(String identifier) {
      return new NodeId(namespaceIndex, identifier);
    }
  }

  private Sessions() {}

  /** Opens every session concurrently, each the way a Milo application would: discover, connect. */
  static List<Session> open(Config.Client config) throws Exception {
    Config.ClientSecurity security = config.security();
    Security.Identity identity = null;
    if (!security.policy().equals("None")) {
      identity = Security.loadIdentity(security.certificate(), security.privateKey());
    }
    initializeSdk(config);
    List<OpcUaClient> clients = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Session>> connecting = new ArrayList<>();
    for (int s = 0; s < config.sessions(); s++) {
      connecting.add(connect(config, identity, s, clients));
    }
    List<Session> sessions = new ArrayList<>();
    // Each OpcUaClient costs Milo ~100 ms of CPU to build and secure sessions cost RSA work on
    // both sides: allow more time the more sessions there are (an unreachable server still
    // fails every session at once). A longer request_timeout_ms lengthens the base (SPEC §3: the
    // adapter's bound on set-up is at least that long), or it would cut Milo's own timeouts short.
    long baseMs = Math.max(10_000L, requestTimeoutMs(config));
    long deadline =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(baseMs + 250L * config.sessions());
    try {
      for (CompletableFuture<Session> future : connecting) {
        sessions.add(future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      }
    } catch (ExecutionException | TimeoutException e) {
      close(clients);
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof ConnectException connect) {
        throw connect;
      }
      if (cause instanceof TimeoutException) {
        throw new ConnectException("cannot create session on " + config.endpoint() + ": timed out", cause);
      }
      throw new ConnectException(
          "cannot create session on " + config.endpoint() + ": " + describe(cause), cause);
    }
    for (Session session : sessions) {
      if (session.namespaceIndex() == null) {
        close(clients);
        throw new IllegalStateException("the server's NamespaceArray has no " + Model.NAMESPACE_URI);
      }
    }
    return sessions;
  }

  /**
   * Milo's first OpcUaClient builds the SDK's type registries (seconds of class loading on a busy
   * machine). That is start-up, not session set-up, so it happens before any session is timed,
   * on a client that never connects.
   */
  private static void initializeSdk(Config.Client config) throws UaException {
    var server =
        new ApplicationDescription(
            null, null, LocalizedText.NULL_VALUE, ApplicationType.Server, null, null, null);
    var endpoint =
        new EndpointDescription(
            config.endpoint(), server, ByteString.NULL_VALUE, MessageSecurityMode.None,
            SecurityPolicy.None.getUri(), null, Stack.TCP_UASC_UABINARY_TRANSPORT_URI, ubyte(0));
    OpcUaClient.create(OpcUaClientConfig.builder().setEndpoint(endpoint).build());
  }

  /**
   * Discover, then connect. The set-up time is the protocol's: GetEndpoints plus
   * OpenSecureChannel, CreateSession and ActivateSession. Building the OpcUaClient in between
   * (Milo sets up per-client type registries, some 100 ms of CPU) is in-process work and not
   * counted.
   */
  private static CompletableFuture<Session> connect(
      Config.Client config, Security.Identity identity, int index, List<OpcUaClient> clients) {
    long[] protocolNs = new long[1];
    long discoveryStarted = System.nanoTime();
    return DiscoveryClient.getEndpoints(config.endpoint(), transport(config))
        .handle(
            (endpoints, error) -> {
              protocolNs[0] = System.nanoTime() - discoveryStarted;
              if (error != null) {
                throw new CompletionException(
                    new ConnectException(
                        "cannot reach " + config.endpoint() + ": " + describe(error), error));
              }
              return selectEndpoint(config, endpoints);
            })
        .thenCompose(
            endpoint -> {
              OpcUaClient client;
              try {
                client =
                    OpcUaClient.create(clientConfig(config, endpoint, identity), transport(config));
              } catch (UaException e) {
                throw new CompletionException(e);
              }
              clients.add(client);
              long connectStarted = System.nanoTime();
              return client
                  .connectAsync()
                  .thenApply(
                      connected -> {
                        protocolNs[0] += System.nanoTime() - connectStarted;
                        return connected;
                      });
            })
        .thenCompose(
            client ->
                client
                    .readNamespaceTableAsync()
                    .thenApply(
                        table ->
                            new Session(
                                index, client, table.getIndex(Model.NAMESPACE_URI),
                                protocolNs[0])));
  }

  private static EndpointDescription selectEndpoint(
      Config.Client config, List<EndpointDescription> endpoints) {
    String policyUri = Security.policy(config.security().policy()).getUri();
    MessageSecurityMode mode = Security.mode(config.security().mode());
    EndpointDescription endpoint =
        endpoints.stream()
            .filter(e -> Objects.equals(e.getSecurityPolicyUri(), policyUri))
            .filter(e -> e.getSecurityMode() == mode)
            .filter(
                e ->
                    e.getTransportProfileUri() == null
                        || e.getTransportProfileUri().isEmpty()
                        || e.getTransportProfileUri().equals(Stack.TCP_UASC_UABINARY_TRANSPORT_URI))
            .findFirst()
            .orElseThrow(
                () ->
                    new CompletionException(
                        new ConnectException(
                            "server at " + config.endpoint() + " offers no endpoint with policy "
                                + config.security().policy() + " and mode "
                                + config.security().mode(),
                            null)));
    // Servers advertise their own idea of their host name; connect where we were told to.
    URI url = URI.create(config.endpoint());
    return EndpointUtil.updateUrl(endpoint, url.getHost(), url.getPort());
  }

  private static OpcUaClientConfig clientConfig(
      Config.Client config, EndpointDescription endpoint, Security.Identity identity) {
    OpcUaClientConfigBuilder builder =
        OpcUaClientConfig.builder()
            .setApplicationName(LocalizedText.english("uabench Eclipse Milo client"))
            .setApplicationUri(config.security().applicationUri())
            .setProductUri("urn:uabench:milo")
            .setEndpoint(endpoint)
            // Every request but Publish (Milo derives Publish's from it), also OpenSecureChannel.
            .setRequestTimeout(uint(requestTimeoutMs(config)))
            .setEncodingLimits(MessageSize.ENCODING_LIMITS)
            // The contract: the client trusts the server certificate it is offered.
            .setCertificateValidator((chain, applicationUri, hostnames) -> {});
    if (config.requestTimeoutMs() != null) {
      // Milo's keep-alive is a Read of the server's state, a request like any other: at its 5 s
      // default a slow server's keep-alives would fail and Milo would drop a working session.
      builder.setKeepAliveTimeout(uint(config.requestTimeoutMs()));
    }
    if (identity != null) {
      builder
          .setKeyPair(identity.keyPair())
          .setCertificate(identity.certificate())
          .setCertificateChain(new java.security.cert.X509Certificate[] {identity.certificate()});
    }
    return builder.build();
  }

  /** SPEC §3 request_timeout_ms when set, else the adapter's 10 s. */
  private static int requestTimeoutMs(Config.Client config) {
    return config.requestTimeoutMs() != null ? config.requestTimeoutMs() : REQUEST_TIMEOUT_MS;
  }

  /**
   * Milo's TCP transport, for discovery, the session and its reconnections: TCP connect and
   * Hello/Acknowledge take request_timeout_ms when it is set, else Milo's defaults (5 s each).
   */
  private static Consumer<OpcTcpClientTransportConfigBuilder> transport(Config.Client config) {
    Integer timeoutMs = config.requestTimeoutMs();
    if (timeoutMs == null) {
      return builder -> builder.setConnectTimeout(uint(CONNECT_TIMEOUT_MS));
    }
    return builder ->
        builder.setConnectTimeout(uint(timeoutMs)).setAcknowledgeTimeout(uint(timeoutMs));
  }

  static void close(List<OpcUaClient> clients) {
    List<CompletableFuture<OpcUaClient>> closing = new ArrayList<>();
    for (OpcUaClient client : clients) {
      closing.add(client.disconnectAsync());
    }
    try {
      CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])).get(3, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Closing is best effort: the process exits right after.
    }
  }

  static void closeSessions(List<Session> sessions) {
    close(sessions.stream().map(Session::client).toList());
  }

  private static final java.util.regex.Pattern DETAIL =
      java.util.regex.Pattern.compile("(?:description|message)=(.*)$");

  /** A short text for an error: the OPC UA status name and Milo's detail where it has one. */
  static String describe(Throwable error) {
    while ((error instanceof ExecutionException || error instanceof java.util.concurrent.CompletionException)
        && error.getCause() != null) {
      error = error.getCause();
    }
    if (error instanceof UaException ua) {
      // Milo's messages read "status=Bad_X, description=..." or "..., message=...": keep the text.
      String name = statusName(ua.getStatusCode().getValue());
      String message = ua.getMessage() == null ? "" : ua.getMessage();
      java.util.regex.Matcher text = DETAIL.matcher(message);
      String detail = text.find() ? text.group(1) : message;
      Throwable root = ua;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root != ua && !(root instanceof UaException) && root.getMessage() != null) {
        detail = root.getMessage(); // e.g. "Connection refused: /127.0.0.1:4840"
      }
      return detail.isEmpty() || detail.contains(name) ? name : name + ": " + detail;
    }
    return error.getClass().getSimpleName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
  }

  /** The OPC UA name of a status code, e.g. "BadTimeout" (Milo spells it "Bad_Timeout"). */
  static String statusName(long code) {
    return org.eclipse.milo.opcua.stack.core.StatusCodes.lookup(code)
        .map(names -> names[0].replace("_", ""))
        .orElse(String.format("0x%08X", code));
  }
}
