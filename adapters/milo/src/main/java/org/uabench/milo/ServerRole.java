package org.uabench.milo;

import static org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.Unsigned.uint;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.milo.opcua.sdk.server.EndpointConfig;
import org.eclipse.milo.opcua.sdk.server.OpcUaServer;
import org.eclipse.milo.opcua.sdk.server.OpcUaServerConfig;
import org.eclipse.milo.opcua.sdk.server.OpcUaServerConfigLimits;
import org.eclipse.milo.opcua.stack.core.security.SecurityPolicy;
import org.eclipse.milo.opcua.stack.core.transport.TransportProfile;
import org.eclipse.milo.opcua.stack.core.types.builtin.DateTime;
import org.eclipse.milo.opcua.stack.core.types.builtin.LocalizedText;
import org.eclipse.milo.opcua.stack.core.types.builtin.unsigned.UInteger;
import org.eclipse.milo.opcua.stack.core.types.structured.BuildInfo;
import org.eclipse.milo.opcua.stack.transport.server.tcp.OpcTcpServerTransport;
import org.eclipse.milo.opcua.stack.transport.server.tcp.OpcTcpServerTransportConfig;
import org.uabench.milo.Protocol.NotSupportedException;

/** `run server`: serves the standard address space until SIGTERM or SIGINT. */
final class ServerRole {

  private ServerRole() {}

  /**
   * SPEC §4, imported information models: Milo has no run-time NodeSet2 loader. Its sdk-server
   * NodeLoader (namespaces.loader) is namespace 0 generated into Java code, and reading a NodeSet2
   * file is left to a separate, unofficial project (eclipse-milo/milo#713). So a non-empty
   * `nodesets` ends here, before anything is built or bound: the first of SPEC's checks.
   */
  private static String noNodeSetLoader() {
    return "key 'nodesets': Eclipse Milo " + Main.sdkVersion() + " has no run-time NodeSet2 "
        + "loader (its SDK imports no NodeSet2 XML; loading NodeSets \"is not officially supported "
        + "yet\", eclipse-milo/milo#713, pointing to the separate digitalpetri/opc-ua-nodeset-parser)";
  }

  static void run(Config.Server config) throws Exception {
    if (!config.nodesets().isEmpty()) {
      throw new NotSupportedException(noNodeSetLoader());
    }
    Config.ServerSecurity security = config.security();
    Security.Identity identity = null;
    List<X509Certificate> trusted = new ArrayList<>();
    if (security.certificate() != null && security.privateKey() != null) {
      identity = Security.loadIdentity(security.certificate(), security.privateKey());
    }
    for (int i = 0; i < security.trustedCertificates().size(); i++) {
      trusted.add(
          Security.loadCertificate(
              security.trustedCertificates().get(i), "security.trusted_certificates[" + i + "]"));
    }

    OpcUaServerConfig serverConfig =
        OpcUaServerConfig.builder()
            .setApplicationUri(security.applicationUri())
            .setApplicationName(LocalizedText.english("uabench Eclipse Milo server"))
            .setProductUri("urn:uabench:milo")
            .setBuildInfo(
                new BuildInfo(
                    "urn:uabench:milo", "uabench", "uabench Eclipse Milo server",
                    Main.sdkVersion(), "", DateTime.now()))
            .setEndpoints(endpoints(config, identity))
            .setCertificateManager(Security.serverCertificates(identity, trusted))
            .setLimits(new Limits())
            .setEncodingLimits(MessageSize.ENCODING_LIMITS)
            .build();

    OpcUaServer server =
        new OpcUaServer(
            serverConfig,
            profile -> new OpcTcpServerTransport(OpcTcpServerTransportConfig.newBuilder().build()));

    ScheduledExecutorService updater =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "uabench-update-loop");
              thread.setDaemon(true);
              return thread;
            });
    var namespace =
        new UabenchNamespace(
            server, config.signals(), config.writes(), config.updateIntervalMs(), updater);
    namespace.startup();

    // SIGTERM and SIGINT run the JVM's shutdown hooks; halting from the hook makes the exit
    // status 0 (the JVM's own would be 143 or 130) and bounds the shutdown well within 5 s.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, namespace), "uabench-stop"));

    server.startup().get(20, TimeUnit.SECONDS);

    ObjectNode ready = Protocol.object();
    ready.put("event", "ready");
    ready.put("endpoint", "opc.tcp://" + hostForUrl(config.host()) + ":" + config.port());
    ready.put("pid", ProcessHandle.current().pid());
    Protocol.emit(ready);

    new CountDownLatch(1).await();
  }

  private static void stop(OpcUaServer server, UabenchNamespace namespace) {
    Thread stopper =
        new Thread(
            () -> {
              try {
                // Transports first, so no client sees the address space disappear.
                server.shutdown().get(3, TimeUnit.SECONDS);
                namespace.shutdown();
              } catch (Exception e) {
                System.err.println("milo server: shutdown: " + e);
              }
            });
    stopper.setDaemon(true);
    stopper.start();
    try {
      stopper.join(3_500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.err.flush();
    Runtime.getRuntime().halt(Protocol.EXIT_OK);
  }

  private static Set<EndpointConfig> endpoints(Config.Server config, Security.Identity identity) {
    Set<EndpointConfig> endpoints = new LinkedHashSet<>();
    for (Config.Endpoint endpoint : config.security().endpoints()) {
      SecurityPolicy policy = Security.policy(endpoint.policy());
      EndpointConfig.Builder builder =
          EndpointConfig.newBuilder()
              .setTransportProfile(TransportProfile.TCP_UASC_UABINARY)
              .setBindAddress(config.host())
              .setBindPort(config.port())
              .setHostname(config.host())
              .setPath("")
              .setSecurityPolicy(policy)
              .setSecurityMode(Security.mode(endpoint.mode()));
      if (identity != null) {
        builder.setCertificate(identity.certificate());
      }
      endpoints.add(builder.build());
    }
    return endpoints;
  }

  private static String hostForUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /**
   * Milo's default of 100 sessions is below the contract's 1000 sessions per client. The
   * advertised array and string maxima follow the raised message size (Milo derives its defaults
   * from its 2 MiB default message size the same way).
   */
  private static final class Limits implements OpcUaServerConfigLimits {
    @Override
    public UInteger getMaxSessions() {
      return uint(10_000);
    }

    @Override
    public UInteger getMaxArrayLength() {
      return uint(MessageSize.MAX_MESSAGE_BYTES / 2);
    }

    @Override
    public UInteger getMaxStringLength() {
      return uint(MessageSize.MAX_MESSAGE_BYTES / 2);
    }

    @Override
    public UInteger getMaxByteStringLength() {
      return uint(MessageSize.MAX_MESSAGE_BYTES / 2);
    }
  }
}
