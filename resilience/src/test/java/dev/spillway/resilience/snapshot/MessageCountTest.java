package dev.spillway.resilience.snapshot;

import dev.spillway.resilience.snapshot.ControlMessage.Kind;
import dev.spillway.resilience.snapshot.Simulation.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exact control messages per wave (seed 002 §IV-D, spec §C.4): vanilla and Delay n(n−1) markers, the double barrier
 * 2n(n−1), the partial double barrier n(n−1) + 2g with g the (source, target) pairs that had a pending get when the
 * source started the wave (the simulator's own record, one flush per pair however many gets), g ≤ n(n−1);
 * peek-and-get one peek round trip per get, more only while the target checkpoints. The n(n−1) {@code DONE}
 * messages of holding are counted apart.
 */
class MessageCountTest
{
    static final int SCHEDULES = Integer.getInteger("spillway.test.snapshotCountSchedules", 2_000);

    @ParameterizedTest
    @EnumSource(SnapshotProtocol.class)
    void everyCompleteWaveCostsExactlyWhatThePaperSays(final SnapshotProtocol protocol)
    {
        int waves = 0;
        int flushedWaves = 0;
        for (int seed = 0; seed < SCHEDULES; seed++)
        {
            final Simulation.Outcome outcome = Simulation.run(Schedules.draw(protocol, seed));
            final Trace trace = outcome.trace();
            final int n = trace.ranks;
            final int channels = n * (n - 1);
            for (final int wave : trace.completeWaves())
            {
                waves++;
                final String where = protocol + " seed " + seed + " wave " + wave + ": " + trace.messages.get(wave);
                assertEquals(channels, trace.count(wave, Kind.MARKER), where);
                assertEquals(channels, trace.count(wave, Kind.DONE), where);
                final int g = trace.pendingAtSwitch.get(wave).size();
                final int flushes = trace.count(wave, Kind.FLUSH);
                assertEquals(protocol == SnapshotProtocol.PARTIAL_DOUBLE_BARRIER ? g : 0, flushes, where);
                assertEquals(flushes, trace.count(wave, Kind.FLUSH_ACK), where);
                assertEquals(protocol == SnapshotProtocol.DOUBLE_BARRIER ? channels : 0,
                    trace.count(wave, Kind.SECOND_MARKER), where);
                assertTrue(g <= channels, where);
                flushedWaves += flushes > 0 ? 1 : 0;
            }
            if (protocol == SnapshotProtocol.PEEK_AND_GET)
            {
                final int gets = outcome.trace().gets.size();
                final int clear = trace.count(0, Kind.PEEK_CLEAR);
                final int busy = trace.count(0, Kind.PEEK_BUSY);
                assertEquals(clear + busy, trace.count(0, Kind.PEEK), "seed " + seed);
                assertTrue(clear >= gets, "seed " + seed + ": " + clear + " clear peeks for " + gets + " gets");
            }
        }
        System.out.println(protocol + ": " + waves + " complete waves, " + flushedWaves + " with flushes");
        assertTrue(waves > SCHEDULES / 2, waves + " waves");
    }

    @Test
    void severalGetsToOneTargetNeedOneFlush()
    {
        final Workload workload = new Workload(Workload.Kind.GET_HEAVY, List.of(
            List.of(Workload.Op.get(1, 0, 1), Workload.Op.get(1, 1, 1), Workload.Op.get(1, 2, 1)), List.of()));
        final Trace trace = scripted(workload, List.of(Step.app(0), Step.app(0), Step.app(0), Step.initiate(0)));
        assertEquals(1, trace.count(0, Kind.FLUSH));
        assertEquals(2 + 2, total(trace), "n(n−1) + 2g with n = 2, g = 1");
    }

    /**
     * Every rank with a get pending towards every other: g = n(n−1), so 3n(n−1) messages. The paper's "not worse
     * than 2n(n−1)" (§IV-D) does not follow from its own 2g extra: each flushed pair exchanges a flush, its answer
     * and both markers.
     */
    @Test
    void gAtItsWorstCostsThreeCirculations()
    {
        final int n = 4;
        final List<List<Workload.Op>> programs = new ArrayList<>();
        final List<Step> script = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            final List<Workload.Op> program = new ArrayList<>();
            for (int t = 0; t < n; t++)
            {
                if (t != r)
                {
                    program.add(Workload.Op.get(t, t, 2));
                    script.add(Step.app(r));
                }
            }
            programs.add(program);
        }
        for (int r = 0; r < n; r++)
        {
            script.add(Step.initiate(r));
        }
        final Trace trace = scripted(new Workload(Workload.Kind.SEGMENTED_GETS, programs), script);
        assertEquals(n * (n - 1), trace.count(0, Kind.FLUSH));
        assertEquals(3 * n * (n - 1), total(trace), "n(n−1) + 2g with g = n(n−1)");
    }

    @Test
    void peekAndGetWithoutWavesIsOneRoundTripPerGet()
    {
        for (int seed = 0; seed < 200; seed++)
        {
            final Simulation.Schedule drawn = Schedules.draw(SnapshotProtocol.PEEK_AND_GET, seed);
            final Trace trace = Simulation.run(Simulation.schedule(drawn.workload(), drawn.protocol(), seed, List.of(),
                List.of())).trace();
            assertEquals(trace.gets.size(), trace.count(0, Kind.PEEK), "seed " + seed);
            assertEquals(trace.gets.size(), trace.count(0, Kind.PEEK_CLEAR), "seed " + seed);
            assertEquals(0, trace.count(0, Kind.PEEK_BUSY), "seed " + seed);
        }
    }

    private static Trace scripted(final Workload workload, final List<Step> script)
    {
        final Simulation.Outcome outcome = Simulation.run(Simulation.schedule(workload,
            SnapshotProtocol.PARTIAL_DOUBLE_BARRIER, 7, List.of(), script));
        assertTrue(outcome.passed(), outcome.toString());
        return outcome.trace();
    }

    private static int total(final Trace trace)
    {
        return trace.count(0, Kind.MARKER) + trace.count(0, Kind.FLUSH) + trace.count(0, Kind.FLUSH_ACK);
    }
}
