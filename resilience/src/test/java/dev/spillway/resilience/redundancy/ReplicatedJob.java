package dev.spillway.resilience.redundancy;

import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one program on every process slot of a replicated job over an {@link InProcessFabric}, as {@code launch
 * --redundancy} would: a slot that received differing copies leaves (its sphere's others run on), and a slot whose
 * run failed leaves before its runtime closes, as its process would exit.
 */
final class ReplicatedJob
{
    /** One slot's program. */
    interface Slot
    {
        /**
         * @param transport this slot's replicated transport.
         * @param exits     call it when the run fails, before the runtime closes: the slot's process exits.
         */
        void run(ReplicatedTransport transport, Runnable exits) throws Exception;
    }

    /** One slot's program that also reaches the slot's physical transport, beneath the replicated one. */
    interface PhysicalSlot
    {
        void run(ReplicatedTransport transport, Transport physical, Runnable exits) throws Exception;
    }

    /** For each slot whose run failed (or that left on differing copies), why. */
    final Map<Integer, Throwable> failed = new ConcurrentHashMap<>();

    private ReplicatedJob()
    {
    }

    /** Runs {@code program} on every slot of {@code plan} and waits for all of them. */
    static ReplicatedJob run(final RedundancyPlan plan, final Duration limit, final Slot program) throws Exception
    {
        return run(plan, limit, (PhysicalSlot)(transport, physical, exits) -> program.run(transport, exits));
    }

    /** As {@link #run(RedundancyPlan, Duration, Slot)}, with each slot's physical transport. */
    static ReplicatedJob run(final RedundancyPlan plan, final Duration limit, final PhysicalSlot program)
        throws Exception
    {
        final int processes = (int)plan.processes();
        final SpherePlacement placement = plan.place(Collections.nCopies(processes, "localhost"));
        final ReplicatedJob job = new ReplicatedJob();
        try (InProcessFabric fabric = new InProcessFabric(processes, limit))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(processes);
            try
            {
                final List<Future<?>> slots = new ArrayList<>();
                for (int slot = 0; slot < processes; slot++)
                {
                    final int s = slot;
                    final ReplicatedTransport transport = new ReplicatedTransport(fabric.transport(slot), placement,
                        mismatch ->
                        {
                            job.failed.putIfAbsent(s, mismatch);
                            fabric.kill(s, "slot " + s + " stops: " + mismatch.getMessage());
                        });
                    slots.add(pool.submit(() ->
                    {
                        try
                        {
                            program.run(transport, fabric.transport(s),
                                () -> fabric.kill(s, "slot " + s + " stopped for a restart"));
                        }
                        catch (final Exception | AssertionError e)
                        {
                            job.failed.putIfAbsent(s, e);
                            fabric.kill(s, "slot " + s + " failed: " + e);
                        }
                        return null;
                    }));
                }
                for (int s = 0; s < processes; s++)
                {
                    try
                    {
                        slots.get(s).get(2 * limit.toSeconds(), TimeUnit.SECONDS);
                    }
                    catch (final TimeoutException e)
                    {
                        throw new AssertionError("slot " + s + " did not finish within " + 2 * limit.toSeconds() +
                            " s; the others: " + job.failed, e);
                    }
                }
            }
            finally
            {
                pool.shutdownNow();
            }
        }
        return job;
    }
}
