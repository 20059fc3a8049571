package dev.spillway.cli;

import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import dev.spillway.resilience.redundancy.ReplicaDigests;
import dev.spillway.resilience.redundancy.ReplicaRestore;
import dev.spillway.resilience.redundancy.ReplicatedTransport;
import dev.spillway.resilience.store.FileCheckpointStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code run --checkpoint-dir DIR} on ranks: rank R keeps its generations in {@code DIR/rank-R/}, rank 0 the job's
 * global commit record in {@code DIR/}. {@code --checkpoint-every N} cuts every N tasks of the whole job's submission
 * order; {@code Ns} and {@code auto} cut where rank 0's policy says, at a point the ranks agree on. With
 * {@code --buddy staged}, each rank's generations are copied to its buddy ({@link BuddyCheckpoints}), and a rank whose
 * directory lost the global checkpoint fetches it back from there. In a replicated job, replica k keeps its
 * generations in {@code DIR/replica-k/rank-R/} and its sphere compares them at every cut; a sphere of three or more
 * replicas takes blocking cuts, so that an outvoted replica is mended before it runs past the cut.
 */
final class RankCheckpoints
{
    private RankCheckpoints()
    {
    }

    /**
     * A replicated job ({@code launch --redundancy}): each replica keeps its own generations
     * ({@link ReplicaRestore}), and its sphere compares them at every global cut ({@link ReplicaDigests}).
     */
    private static GlobalCheckpoints replicated(final SpillwayConfig config, final ReplicatedTransport transport,
        final Path dir, final String every, final Double mtbfSeconds, final int incarnation) throws IOException
    {
        final long restored = ReplicaRestore.agree(transport, dir, System.err::println);
        final Path root = ReplicaRestore.root(dir, transport.replica());
        final Path rankDir = ReplicaRestore.rankDir(dir, transport.replica(), transport.rank());
        // A cut counts only once verified, so the store keeps three generations: with semi-blocking cuts a replica
        // begins the next while the comparison is in flight.
        final FileCheckpointStore store = Checkpoints.store(rankDir).globalCut(restored).keep(3).open();
        try
        {
            final GlobalCheckpoints policy = policy(store, root, every, mtbfSeconds, restored, incarnation);
            // A sphere that can outvote a replica holds each cut's later tasks until its vote, so the replica
            // outvoted is mended in place rather than dropped.
            final boolean mend = transport.placement().slotsOf(transport.rank()).size() >= 3;
            policy.copyCommitsTo(new ReplicaDigests(transport, rankDir, mend));
            config.checkpoints(store, policy);
            if (mend)
            {
                config.checkpointMode(CheckpointMode.BLOCKING);
                if (transport.replica() == 0)
                {
                    System.err.println("spillway: rank " + transport.rank() + "'s sphere has " +
                        transport.placement().slotsOf(transport.rank()).size() + " replicas: its checkpoints block " +
                        "until the sphere has voted on each cut, so a replica outvoted is mended in place");
                }
            }
            return policy;
        }
        catch (final RuntimeException e)
        {
            store.close();
            throw e;
        }
    }

    private static GlobalCheckpoints policy(final FileCheckpointStore store, final Path root, final String every,
        final Double mtbfSeconds, final long restored, final int incarnation)
    {
        final String text = every.trim().toLowerCase(Locale.ROOT);
        return Checkpoints.countsTasks(text) ?
            GlobalCheckpoints.everyTasks(Long.parseLong(text), root, restored, incarnation) :
            GlobalCheckpoints.agreed(Checkpoints.policy(store, every, mtbfSeconds), root, restored, incarnation);
    }

    /**
     * Agrees with the other ranks on the global checkpoint to resume from (a collective), opens this rank's store on
     * it and sets both on {@code config}.
     *
     * @param buddy how each generation travels to a buddy rank ({@code --buddy staged}), or null for no buddy.
     * @return the policy set.
     */
    static GlobalCheckpoints configure(final SpillwayConfig config, final Transport transport, final Path root,
        final String every, final Double mtbfSeconds, final int incarnation, final BuddyCheckpoints.Stream buddy)
        throws IOException
    {
        Checkpoints.check(every, mtbfSeconds);
        if (transport instanceof ReplicatedTransport replicated)
        {
            return replicated(config, replicated, root, every, mtbfSeconds, incarnation);
        }
        // A rank started again alone (past-to-future logging) rejoins ranks that run on: it reads the record itself.
        final boolean rejoined = transport instanceof UcxTransport ucx && ucx.rejoined();
        if (!rejoined)
        {
            GlobalCheckpoints.forgetRollBack(root, transport.rank());
        }
        final long agreed = rejoined ? GlobalCheckpoints.rejoinCut(root, transport.rank(), transport.size()) :
            GlobalCheckpoints.agreeOnRestore(transport, root, buddy != null);
        final BuddyCheckpoints buddies = buddy != null ? BuddyCheckpoints.start(transport, root, agreed, buddy,
            System.err::println) : null;
        final long restored = buddies == null ? agreed : buddies.restored();
        final FileCheckpointStore store;
        try
        {
            store = Checkpoints.store(root.resolve("rank-" + transport.rank())).globalCut(restored)
                .keep(buddy != null ? BuddyCheckpoints.KEPT : 2).open();
        }
        catch (final IOException | RuntimeException e)
        {
            if (buddies != null)
            {
                buddies.close();
            }
            throw e;
        }
        try
        {
            final GlobalCheckpoints policy = policy(store, root, every, mtbfSeconds, restored, incarnation);
            if (buddies != null)
            {
                policy.copyCommitsTo(buddies);
                policy.recordCommitsOnEveryRank();
            }
            config.checkpoints(store, policy);
            return policy;
        }
        catch (final RuntimeException e)
        {
            if (buddies != null)
            {
                buddies.close();
            }
            store.close();
            throw e;
        }
    }
}
