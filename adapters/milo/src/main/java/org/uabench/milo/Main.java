package org.uabench.milo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.Properties;
import org.eclipse.milo.opcua.sdk.client.OpcUaClient;
import org.uabench.milo.Protocol.ConfigException;
import org.uabench.milo.Protocol.ConnectException;
import org.uabench.milo.Protocol.NotSupportedException;

/** Entry point of the uabench adapter for Eclipse Milo: dispatches the subcommands of SPEC §2. */
public final class Main {

  static final String SDK_ID = "milo";
  static final String LANGUAGE = "Java";
  private static final String USAGE =
      "usage: run capabilities | run server --config FILE | run client --config FILE";

  private Main() {}

  public static void main(String[] args) {
    Protocol.claimStdout();
    try {
      dispatch(args);
      System.err.flush();
      Runtime.getRuntime().halt(Protocol.EXIT_OK);
    } catch (ConfigException e) {
      Protocol.fail("config", e.getMessage(), Protocol.EXIT_CONFIG);
    } catch (NotSupportedException e) {
      Protocol.fail("not_supported", e.getMessage(), Protocol.EXIT_NOT_SUPPORTED);
    } catch (ConnectException e) {
      Protocol.fail("connect", e.getMessage(), Protocol.EXIT_RUNTIME);
    } catch (Throwable e) {
      e.printStackTrace();
      Protocol.fail("runtime", Sessions.describe(e), Protocol.EXIT_RUNTIME);
    }
  }

  private static void dispatch(String[] args) throws Exception {
    String command = args.length > 0 ? args[0] : "";
    switch (command) {
      case "capabilities" -> Protocol.emit(capabilities());
      case "server" -> ServerRole.run(Config.server(Config.load(configPath(args))));
      case "client" -> ClientRole.run(Config.client(Config.load(configPath(args))));
      case "publisher", "subscriber" -> throw new NotSupportedException(
          "role '" + command + "': Eclipse Milo " + sdkVersion() + " has no PubSub");
      default -> throw new ConfigException(USAGE);
    }
  }

  private static String configPath(String[] args) throws ConfigException {
    if (args.length == 3 && args[1].equals("--config")) {
      return args[2];
    }
    throw new ConfigException(USAGE);
  }

  static ObjectNode capabilities() {
    ObjectNode out = Protocol.object();
    out.put("sdk", SDK_ID);
    out.put("version", sdkVersion());
    out.put("language", LANGUAGE);
    out.putArray("roles").add("server").add("client");
    out.putArray("workloads").add("read").add("write").add("subscribe");
    ArrayNode security = out.putArray("security");
    security.addObject().put("policy", "None").put("mode", "None");
    for (String policy : Config.POLICIES.subList(1, Config.POLICIES.size())) {
      for (String mode : Config.MODES.subList(1, Config.MODES.size())) {
        security.addObject().put("policy", policy).put("mode", mode);
      }
    }
    return out;
  }

  private static String version;

  /**
   * The Milo version actually on the class path, from the SDK jars' own Maven metadata (the fat
   * jar keeps it); Milo's X-SDK-Version manifest attribute does not survive shading.
   */
  static synchronized String sdkVersion() {
    if (version == null) {
      String client = pomVersion("milo-sdk-client");
      String server = pomVersion("milo-sdk-server");
      if (client != null && server != null && !client.equals(server)) {
        version = client + "+server-" + server;
      } else if (client != null) {
        version = client;
      } else {
        version = OpcUaClient.SDK_VERSION;
      }
    }
    return version;
  }

  private static String pomVersion(String artifact) {
    String resource = "/META-INF/maven/org.eclipse.milo/" + artifact + "/pom.properties";
    try (InputStream in = OpcUaClient.class.getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (java.io.IOException e) {
      return null;
    }
  }
}
