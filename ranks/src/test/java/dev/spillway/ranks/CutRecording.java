package dev.spillway.ranks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What one rank submitted, for the {@link CutChecker}: its transfer halves with their local sequence numbers, and the
 * local frontier every cut it requested must have: the sequence number of the first local task at or after its global
 * index, submitted already or the next one.
 */
final class CutRecording implements DistributedSpillway.Recorder
{
    final int rank;
    private final List<Half> halves = new ArrayList<>();
    private final TreeMap<Long, Long> frontiers = new TreeMap<>();
    /** Global index to the first local task submitted at it, and the sequence number of the next one. */
    private final TreeMap<Long, Long> firstSeqs = new TreeMap<>();
    private long nextSeq;

    CutRecording(final int rank)
    {
        this.rank = rank;
    }

    @Override
    public synchronized void task(final long globalIndex, final long seq)
    {
        local(globalIndex, seq);
    }

    @Override
    public synchronized void transfer(final boolean send, final int source, final int target, final String object,
        final int version, final long globalIndex, final long seq)
    {
        halves.add(new Half(send, source, target, object, version, globalIndex, seq));
        local(globalIndex, seq);
    }

    /** Records the frontier a cut at {@code globalIndex} must have, worked out here, not the one the runtime gives. */
    @Override
    public synchronized void cut(final long globalIndex, final long frontier)
    {
        final Map.Entry<Long, Long> first = firstSeqs.ceilingEntry(globalIndex);
        frontiers.put(globalIndex, first == null ? nextSeq : first.getValue());
        notifyAll();
    }

    private void local(final long globalIndex, final long seq)
    {
        firstSeqs.putIfAbsent(globalIndex, seq);
        nextSeq = Math.max(nextSeq, seq + 1);
    }

    synchronized List<Half> halves()
    {
        return List.copyOf(halves);
    }

    /** @return the global index of every cut requested to its local frontier. */
    synchronized TreeMap<Long, Long> frontiers()
    {
        return new TreeMap<>(frontiers);
    }

    /**
     * Waits until this rank requested {@code cuts} cuts.
     *
     * @return false if it had not within {@code limit}, a safety net only.
     */
    synchronized boolean awaitCuts(final int cuts, final Duration limit) throws InterruptedException
    {
        final long deadline = System.nanoTime() + limit.toNanos();
        long left;
        while (frontiers.size() < cuts && (left = deadline - System.nanoTime()) > 0)
        {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return frontiers.size() >= cuts;
    }

    /**
     * One rank's half of a transfer.
     *
     * @param globalIndex the global index of the task it serves, the same for both halves.
     * @param seq         its local sequence number on the rank that submitted it.
     */
    record Half(boolean send, int source, int target, String object, int version, long globalIndex, long seq)
    {
        /** @return what both halves share. */
        Key key()
        {
            return new Key(source, target, object, version);
        }

        /** @return the rank that submitted it. */
        int rank()
        {
            return send ? source : target;
        }

        @Override
        public String toString()
        {
            return (send ? "send" : "receive") + " #" + seq + " on rank " + rank();
        }
    }

    /** A transfer: version {@code version} of {@code object} moved from {@code source} to {@code target}. */
    record Key(int source, int target, String object, int version)
    {
        @Override
        public String toString()
        {
            return "'" + object + "' v" + version + " from rank " + source + " to rank " + target;
        }
    }
}
