// uabench adapter for node-opcua: `capabilities`, `server --config F`, `client --config F`.
// See adapters/SPEC.md. Stdout carries only the protocol's JSON lines.

// node-opcua and its dependencies print diagnostics with console.log; send all console
// output to stderr before anything of theirs is loaded (hence the dynamic imports below).
for (const name of ["log", "info", "debug", "warn", "trace"]) console[name] = console.error;

// A server exits 0 on SIGTERM/SIGINT at any time, also while it is still starting; the
// running server replaces `lifecycle.stop` with its orderly shutdown.
const lifecycle = { stop: () => process.exit(0) };
if (process.argv[2] === "server") {
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => lifecycle.stop());
}

const { ConfigError, ConnectError, NotSupported, emit, fail } = await import("./protocol.js");
const { capabilities, SDK_VERSION } = await import("./capabilities.js");

function configPath(args) {
  const i = args.indexOf("--config");
  if (i < 0 || !args[i + 1] || args.length !== 2) {
    throw new ConfigError("config: usage: run server|client --config FILE");
  }
  return args[i + 1];
}

async function quietSdk() {
  const { setLogLevel, LogLevel } = await import("node-opcua");
  // node-opcua's own debug switch, DEBUG=<its module names> (e.g. RECONNECTION,client_base_impl,
  // or ALL), raises its log level to Debug; kept when set, for diagnosing a run by hand (stderr).
  if (!process.env.DEBUG) setLogLevel(LogLevel.Warning);
}

async function main([command, ...args]) {
  const { loadConfig, serverConfig, clientConfig, requireNodesetFiles } = await import("./config.js");
  switch (command) {
    case "capabilities":
      emit(capabilities());
      return;
    case "server": {
      const config = serverConfig(loadConfig(configPath(args)));
      requireNodesetFiles(config);
      await quietSdk();
      const { runServer } = await import("./server.js");
      await runServer(config, lifecycle);
      return;
    }
    case "client": {
      const config = clientConfig(loadConfig(configPath(args)));
      await quietSdk();
      const { runClient } = await import("./client.js");
      emit(await runClient(config, SDK_VERSION));
      process.exit(0);
      return;
    }
    case "publisher":
    case "subscriber":
      throw new NotSupported(`role '${command}': PubSub is not in the free node-opcua package`);
    default:
      process.stderr.write("usage: run capabilities | run server --config FILE | run client --config FILE\n");
      throw new ConfigError(`config: unknown command '${command ?? ""}'`);
  }
}

function report(error) {
  if (error instanceof ConfigError) fail("config", error.message);
  else if (error instanceof NotSupported) fail("not_supported", error.message);
  else if (error instanceof ConnectError) fail("connect", error.message);
  else {
    process.stderr.write(`${error?.stack ?? error}\n`);
    fail("runtime", String(error?.message ?? error));
  }
}

// A stray rejection inside the SDK (a client vanishing mid-request, say) must not take a
// serving process down; failures of the workload itself reach report() through main().
process.on("unhandledRejection", (error) => process.stderr.write(`unhandled rejection: ${error?.stack ?? error}\n`));
main(process.argv.slice(2)).catch(report);
