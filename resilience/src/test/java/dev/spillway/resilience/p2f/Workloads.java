package dev.spillway.resilience.p2f;

import dev.spillway.resilience.p2f.Workload.Op;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** The simulator's workloads W1–W5 (spec §A.9), each drawn from a seed. */
final class Workloads
{
    private Workloads()
    {
    }

    /** W1: a ring exchange like a stencil's halo, every rank with both neighbours each iteration. */
    static Workload ring(final int ranks, final int iterations, final Workload.CutPlan cuts, final int[] epochs)
    {
        final List<List<Op>> programs = programs(ranks);
        for (int it = 0; it < iterations; it++)
        {
            for (int r = 0; r < ranks; r++)
            {
                final int left = (r + ranks - 1) % ranks;
                final int right = (r + 1) % ranks;
                programs.get(r).addAll(List.of(Op.send(left), Op.send(right), Op.recv(left), Op.recv(right)));
            }
        }
        return new Workload("W1 ring n=" + ranks, programs, epochs, cuts);
    }

    /**
     * W2: the domino pattern. A token travels down a chain and back each step; rank {@code r} checkpoints at the
     * start of the steps {@code t} with {@code t + r} even, so no two checkpoints of neighbours are consistent.
     */
    static Workload domino(final int ranks, final int steps, final int[] epochs)
    {
        final List<List<Op>> programs = programs(ranks);
        final List<List<Integer>> cutPcs = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            cutPcs.add(new ArrayList<>());
        }
        for (int t = 0; t < steps; t++)
        {
            for (int r = 0; r < ranks; r++)
            {
                final List<Op> program = programs.get(r);
                if (t > 0 && (t + r) % 2 == 0)
                {
                    cutPcs.get(r).add(program.size());
                }
                if (r > 0)
                {
                    program.add(Op.recv(r - 1));
                }
                if (r < ranks - 1)
                {
                    program.add(Op.send(r + 1));
                    program.add(Op.recv(r + 1));
                }
                if (r > 0)
                {
                    program.add(Op.send(r - 1));
                }
            }
        }
        return new Workload("W2 domino n=" + ranks, programs, epochs,
            (rank, pc) -> cutPcs.get(rank).contains(pc));
    }

    /** W3: all-to-all rounds, like FT's transposes. */
    static Workload allToAll(final int ranks, final int rounds, final Workload.CutPlan cuts, final int[] epochs)
    {
        final List<List<Op>> programs = programs(ranks);
        for (int round = 0; round < rounds; round++)
        {
            for (int r = 0; r < ranks; r++)
            {
                for (int k = 1; k < ranks; k++)
                {
                    programs.get(r).add(Op.send((r + k) % ranks));
                }
                for (int k = 1; k < ranks; k++)
                {
                    programs.get(r).add(Op.recv((r + ranks - k) % ranks));
                }
            }
        }
        return new Workload("W3 all-to-all n=" + ranks, programs, epochs, cuts);
    }

    /** W4: clusters of contiguous ranks, a ring inside each cluster every round and to the next cluster every other. */
    static Workload clustered(final int ranks, final int clusters, final int rounds, final Workload.CutPlan cuts,
        final int[] epochs)
    {
        final int size = ranks / clusters;
        final List<List<Op>> programs = programs(ranks);
        for (int round = 0; round < rounds; round++)
        {
            for (int r = 0; r < ranks; r++)
            {
                final List<Op> program = programs.get(r);
                final int base = r / size * size;
                if (size > 1)
                {
                    final int next = base + (r - base + 1) % size;
                    final int previous = base + (r - base + size - 1) % size;
                    program.addAll(List.of(Op.send(next), Op.recv(previous)));
                }
                if (round % 2 == 1 && clusters > 1)
                {
                    program.addAll(List.of(Op.send((r + size) % ranks), Op.recv((r + ranks - size) % ranks)));
                }
            }
        }
        return new Workload("W4 clustered n=" + ranks + " p=" + clusters, programs, epochs, cuts);
    }

    /**
     * W5: anonymous receives (seed 001 Fig. 2). Rank 1 receives from rank 0 and then from rank 2 with
     * {@code RECV_ANY}; rank 2 answers only after hearing from rank 1, and rank 0 sends again only after rank 1's
     * round ends, so a failure-free run always matches the same way. Ranks 3 and up exchange in a ring.
     */
    static Workload anonymous(final int ranks, final int rounds, final Workload.CutPlan cuts, final int[] epochs)
    {
        final List<List<Op>> programs = programs(ranks);
        for (int round = 0; round < rounds; round++)
        {
            programs.get(0).addAll(List.of(Op.send(1), Op.recv(1)));
            programs.get(1).addAll(List.of(Op.recvAny(), Op.send(2), Op.recvAny(), Op.send(0)));
            programs.get(2).addAll(List.of(Op.recv(1), Op.send(1)));
            final int others = ranks - 3;
            for (int r = 3; r < ranks && others > 1; r++)
            {
                final int next = 3 + (r - 3 + 1) % others;
                final int previous = 3 + (r - 3 + others - 1) % others;
                programs.get(r).addAll(List.of(Op.send(next), Op.recv(previous)));
            }
        }
        return new Workload("W5 anonymous n=" + ranks, programs, epochs, cuts);
    }

    /** Checkpoints at seeded random points, fixed per position: seed 001's "independent" case (seeded jitter). */
    static Workload.CutPlan independent(final double probability, final long seed)
    {
        return (rank, pc) -> pc > 0
            && new SplittableRandom(seed ^ (long) rank << 32 ^ pc * 0x9E3779B97F4A7C15L).nextDouble() < probability;
    }

    /** A checkpoint every {@code interval} operations of each rank. */
    static Workload.CutPlan every(final int interval)
    {
        return (rank, pc) -> pc > 0 && pc % interval == 0;
    }

    /** Epoch offsets for {@code clusters} contiguous clusters, {@code gap} apart. */
    static int[] clusterEpochs(final int ranks, final int clusters, final int gap)
    {
        final int[] epochs = new int[ranks];
        final int size = Math.max(1, ranks / clusters);
        for (int r = 0; r < ranks; r++)
        {
            epochs[r] = 1 + gap * Math.min(clusters - 1, r / size);
        }
        return epochs;
    }

    /** A workload drawn from {@code seed}: the kind by {@code kind}, its size and cut plan at random. */
    static Workload draw(final int kind, final SplittableRandom random)
    {
        final int gap = random.nextBoolean() ? 2 : 100;
        switch (kind)
        {
            case 0:
            {
                final int n = 2 + random.nextInt(15);
                final int clusters = 1 + random.nextInt(Math.min(4, n));
                return ring(n, 2 + random.nextInt(Math.max(2, 40 / n)), cutPlan(random), clusterEpochs(n, clusters, gap));
            }
            case 1:
            {
                final int n = 2 + random.nextInt(3);
                return domino(n, 6 + random.nextInt(10), clusterEpochs(n, n, 2));
            }
            case 2:
            {
                final int n = 2 + random.nextInt(Math.max(1, random.nextInt(15)) + 1);
                final int clusters = 1 + random.nextInt(Math.min(4, n));
                return allToAll(n, 1 + random.nextInt(Math.max(1, 24 / n)), cutPlan(random), clusterEpochs(n, clusters, gap));
            }
            case 3:
            {
                final int clusters = 2 + random.nextInt(3);
                final int size = 1 + random.nextInt(4);
                final int n = clusters * size;
                return clustered(n, clusters, 4 + random.nextInt(8), every(2 + random.nextInt(4)),
                    clusterEpochs(n, clusters, gap));
            }
            default:
            {
                final int n = 3 + random.nextInt(4);
                final int[] epochs = new int[n];
                epochs[0] = 1;
                epochs[1] = 1 + 2 * 1000;
                epochs[2] = 1 + 1000;
                for (int r = 3; r < n; r++)
                {
                    epochs[r] = 1;
                }
                return anonymous(n, 3 + random.nextInt(6), every(2 + random.nextInt(3)), epochs);
            }
        }
    }

    private static Workload.CutPlan cutPlan(final SplittableRandom random)
    {
        return random.nextBoolean() ? independent(0.05 + 0.25 * random.nextDouble(), random.nextLong())
            : every(2 + random.nextInt(5));
    }

    private static List<List<Op>> programs(final int ranks)
    {
        final List<List<Op>> programs = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            programs.add(new ArrayList<>());
        }
        return programs;
    }
}
