package dev.spillway.resilience.snapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What happened in one simulated run, on one clock that ticks at every recorded event: data legs, gets, local
 * checkpoints and control messages. The simulator writes it from its own view of the network, never from the
 * protocol's state, so that {@link CutChecker} judges the protocol independently. The threaded stress run writes it
 * from several threads: the recording methods are synchronized, and it is read after they have ended.
 */
final class Trace
{
    static final long NEVER = Long.MAX_VALUE;

    /** Put or accumulate data, or one segment of a get response: sent at its source, applied at its target. */
    static final class Leg
    {
        final String what;
        final int source;
        final int target;
        final long sentAt;
        long appliedAt = NEVER;

        Leg(final String what, final int source, final int target, final long sentAt)
        {
            this.what = what;
            this.source = source;
            this.target = target;
            this.sentAt = sentAt;
        }

        @Override
        public String toString()
        {
            return what + " " + source + "→" + target + " sent@" + sentAt + " applied@" + at(appliedAt);
        }
    }

    /** A get: requested by {@code source}, arrived at and served by {@code target}, done at {@code source}. */
    static final class Get
    {
        final int source;
        final int target;
        final long requestedAt;
        long arrivedAt = NEVER;
        long servedAt = NEVER;
        long doneAt = NEVER;
        final List<Leg> segments = new ArrayList<>();

        Get(final int source, final int target, final long requestedAt)
        {
            this.source = source;
            this.target = target;
            this.requestedAt = requestedAt;
        }

        @Override
        public String toString()
        {
            return "get " + source + "←" + target + " requested@" + requestedAt + " arrived@" + at(arrivedAt)
                + " served@" + at(servedAt) + " done@" + at(doneAt);
        }
    }

    final int ranks;
    final List<Leg> legs = new ArrayList<>();
    final List<Get> gets = new ArrayList<>();
    /** Per wave, when each rank checkpointed it ({@link #NEVER} if it did not). */
    final Map<Integer, long[]> checkpoints = new TreeMap<>();
    /** Per wave, the control messages sent, by kind (peeks, which belong to no wave, under wave 0). */
    final Map<Integer, Map<ControlMessage.Kind, Integer>> messages = new TreeMap<>();
    /** Per wave, the (source, target) pairs with a pending get when the source started the wave. */
    final Map<Integer, TreeSet<String>> pendingAtSwitch = new TreeMap<>();
    private final Map<Integer, long[]> switchedAt = new HashMap<>();
    private long clock;

    Trace(final int ranks)
    {
        this.ranks = ranks;
    }

    synchronized long tick()
    {
        return clock++;
    }

    synchronized Leg leg(final String what, final int source, final int target)
    {
        final Leg leg = new Leg(what, source, target, tick());
        legs.add(leg);
        return leg;
    }

    synchronized Get get(final int source, final int target)
    {
        final Get get = new Get(source, target, tick());
        gets.add(get);
        return get;
    }

    synchronized void checkpoint(final int rank, final int wave)
    {
        row(checkpoints, wave)[rank] = tick();
    }

    /** @return whether this is the first message {@code rank} sends in {@code wave}'s switch (a marker or a flush). */
    synchronized boolean switching(final int rank, final int wave)
    {
        final long[] at = row(switchedAt, wave);
        if (at[rank] != NEVER)
        {
            return false;
        }
        at[rank] = tick();
        pendingAtSwitch.computeIfAbsent(wave, w -> new TreeSet<>());
        return true;
    }

    synchronized void sent(final ControlMessage message)
    {
        messages.computeIfAbsent(message.wave(), w -> new EnumMap<>(ControlMessage.Kind.class))
            .merge(message.kind(), 1, Integer::sum);
    }

    int count(final int wave, final ControlMessage.Kind kind)
    {
        return messages.getOrDefault(wave, Map.of()).getOrDefault(kind, 0);
    }

    /** @return the waves every rank checkpointed. */
    List<Integer> completeWaves()
    {
        final List<Integer> complete = new ArrayList<>();
        checkpoints.forEach((wave, at) ->
        {
            if (Arrays.stream(at).noneMatch(t -> t == NEVER))
            {
                complete.add(wave);
            }
        });
        return complete;
    }

    private long[] row(final Map<Integer, long[]> table, final int wave)
    {
        return table.computeIfAbsent(wave, w ->
        {
            final long[] at = new long[ranks];
            Arrays.fill(at, NEVER);
            return at;
        });
    }

    private static String at(final long time)
    {
        return time == NEVER ? "never" : Long.toString(time);
    }
}
