package dev.spillway.internal;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.ThreadFactory;

/** The runtime's threads: the IO thread and one per worker, each an Agrona agent on a daemon thread. */
final class AgentThreads
{
    private final AgentRunner io;
    private final AgentRunner[] workers;

    /** Starts the IO thread, then the workers, each idling on its ready queue's strategy. */
    AgentThreads(final IoAgent agent, final IdleStrategy ioIdle, final Worker[] workers, final ReadyQueues ready,
        final ErrorHandler onError)
    {
        io = new AgentRunner(ioIdle, onError, null, agent);
        AgentRunner.startOnThread(io, daemon());
        this.workers = new AgentRunner[workers.length];
        for (int i = 0; i < workers.length; i++)
        {
            this.workers[i] = new AgentRunner(ready.idleOf(i), onError, null, workers[i]);
            AgentRunner.startOnThread(this.workers[i], daemon());
        }
    }

    private static ThreadFactory daemon()
    {
        return r ->
        {
            final Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops the workers, then the IO thread. */
    void stop()
    {
        for (final AgentRunner r : workers)
        {
            stop(r);
        }
        stop(io);
    }

    /** Stops an idle agent thread at once: after 1 ms it is interrupted out of its park. */
    private static void stop(final AgentRunner runner)
    {
        runner.close(1, thread -> { });
    }
}
