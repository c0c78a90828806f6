package org.uabench.milo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The stdout protocol of SPEC §2: one JSON object per line, flushed at once; logs elsewhere. */
final class Protocol {

  static final int EXIT_OK = 0;
  static final int EXIT_RUNTIME = 1;
  static final int EXIT_CONFIG = 2;
  static final int EXIT_NOT_SUPPORTED = 3;

  static final ObjectMapper JSON = new ObjectMapper();

  // Stdout belongs to the protocol alone: this stream writes to file descriptor 1 directly.
  private static final PrintStream OUT =
      new PrintStream(
          new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  private Protocol() {}

  /** Sends whatever a library prints to System.out to stderr, where it cannot corrupt stdout. */
  static void claimStdout() {
    System.setOut(System.err);
  }

  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  static synchronized void emit(ObjectNode event) {
    try {
      OUT.print(JSON.writeValueAsString(event));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    OUT.print('\n');
    OUT.flush();
  }

  /** Prints the error event, logs it, and exits; never returns. */
  static void fail(String kind, String message, int exitCode) {
    ObjectNode event = object();
    event.put("event", "error");
    event.put("kind", kind);
    event.put("message", message);
    emit(event);
    System.err.println(kind + ": " + message);
    System.err.flush();
    Runtime.getRuntime().halt(exitCode);
  }

  /** A config that is unreadable, has an unknown key, a wrong type or an out-of-range value. */
  static final class ConfigException extends Exception {
    ConfigException(String message) {
      super(message);
    }
  }

  /** The config asks for a feature this SDK lacks. */
  static final class NotSupportedException extends Exception {
    NotSupportedException(String message) {
      super(message);
    }
  }

  /** The endpoint cannot be reached or a session cannot be created. */
  static final class ConnectException extends Exception {
    ConnectException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
