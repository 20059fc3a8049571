package dev.spillway.cli;

import dev.spillway.SpillwayConfig;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import dev.spillway.resilience.store.FileCheckpointStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code run --checkpoint-dir DIR} on ranks: rank R keeps its generations in {@code DIR/rank-R/}, rank 0 the job's
 * global commit record in {@code DIR/}. {@code --checkpoint-every N} cuts every N tasks of the whole job's submission
 * order; {@code Ns} and {@code auto} cut where rank 0's policy says, at a point the ranks agree on. With
 * {@code --buddy staged}, each rank's generations are copied to its buddy ({@link BuddyCheckpoints}), and a rank whose
 * directory lost the global checkpoint fetches it back from there.
 */
final class RankCheckpoints
{
    private RankCheckpoints()
    {
    }

    /**
     * Agrees with the other ranks on the global checkpoint to resume from (a collective), opens this rank's store on
     * it and sets both on {@code config}.
     *
     * @return the policy set.
     */
    static GlobalCheckpoints configure(final SpillwayConfig config, final Transport transport, final Path root,
        final String every, final Double mtbfSeconds, final int incarnation, final boolean buddy) throws IOException
    {
        Checkpoints.check(every, mtbfSeconds);
        // A rank started again alone (past-to-future logging) rejoins ranks that run on: it reads the record itself.
        final boolean rejoined = transport instanceof UcxTransport ucx && ucx.rejoined();
        if (!rejoined)
        {
            GlobalCheckpoints.forgetRollBack(root, transport.rank());
        }
        final long agreed = rejoined ? GlobalCheckpoints.rejoinCut(root, transport.rank(), transport.size()) :
            GlobalCheckpoints.agreeOnRestore(transport, root);
        final BuddyCheckpoints buddies = buddy ? BuddyCheckpoints.start(transport, root, agreed,
            System.err::println) : null;
        final long restored = buddies == null ? agreed : buddies.restored();
        final FileCheckpointStore store;
        try
        {
            store = Checkpoints.store(root.resolve("rank-" + transport.rank())).globalCut(restored)
                .keep(buddy ? BuddyCheckpoints.KEPT : 2).open();
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
            final String text = every.trim().toLowerCase(Locale.ROOT);
            final GlobalCheckpoints policy = text.matches("\\d{1,18}") ?
                GlobalCheckpoints.everyTasks(Long.parseLong(text), root, restored, incarnation) :
                GlobalCheckpoints.agreed(Checkpoints.policy(store, every, mtbfSeconds), root, restored, incarnation);
            if (buddies != null)
            {
                policy.copyCommitsTo(buddies);
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
