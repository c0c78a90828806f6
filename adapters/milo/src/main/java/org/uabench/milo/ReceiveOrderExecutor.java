package org.uabench.milo;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.eclipse.milo.opcua.stack.core.util.ExecutionQueue;

/**
 * A session's transport executor that runs its tasks one at a time, in the order they were
 * submitted, on a shared pool (Milo's own {@link ExecutionQueue}). Milo's transport completes each
 * response's future through its executor, in the order the responses arrive; its default, a
 * pool, runs those completions in any order, so a response received later could be verified
 * first and look as if its ticks went back (SPEC §3 R2 judges in the order responses arrive).
 * The pool is shared and not this object's: shutting this down does nothing.
 */
final class ReceiveOrderExecutor extends AbstractExecutorService {

  private final ExecutionQueue queue;

  ReceiveOrderExecutor(Executor pool) {
    this.queue = new ExecutionQueue(pool);
  }

  @Override
  public void execute(Runnable task) {
    queue.submit(task);
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
