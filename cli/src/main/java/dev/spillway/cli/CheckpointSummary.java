package dev.spillway.cli;

import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.memory.ByteUnits;

import java.util.Map;

/** The checkpoint lines of {@code run}'s summary and the keys of its {@code --json}. */
final class CheckpointSummary
{
    private CheckpointSummary()
    {
    }

    static void put(final CheckpointReport c, final Map<String, Object> out)
    {
        out.put("checkpoint_mode", c.mode().name().toLowerCase(java.util.Locale.ROOT));
        out.put("checkpoint_policy", c.policy());
        out.put("checkpoints", c.committed());
        out.put("checkpoints_abandoned", c.abandoned());
        out.put("checkpoint_block_s", c.blockSeconds());
        out.put("checkpoint_total_s", c.totalSeconds());
        out.put("checkpoint_bytes", c.bytesWritten());
        out.put("checkpoint_objects_saved", c.objectsSaved());
        out.put("checkpoint_objects_inherited", c.objectsInherited());
        out.put("restored_generation", c.restoredGeneration());
        out.put("restored_tasks", c.restoredTasks());
        out.put("reexecuted_tasks", c.reexecutedTasks());
        out.put("restore_s", c.restoreSeconds());
        out.put("restore_read_s", c.readSeconds());
        out.put("restore_verify_s", c.verifySeconds());
        out.put("reexecute_s", c.reexecuteSeconds());
    }

    static String describe(final CheckpointReport c)
    {
        final StringBuilder s = new StringBuilder();
        s.append(String.format("  checkpoints (%s, %s): %d committed, %d abandoned; tasks held back %.3f s; " +
                "cut-to-durable %.2f s in all; wrote %s (%d objects saved, %d inherited)%n",
            c.mode().name().toLowerCase(java.util.Locale.ROOT), c.policy(), c.committed(), c.abandoned(),
            c.blockSeconds(), c.totalSeconds(), ByteUnits.format(c.bytesWritten()), c.objectsSaved(), c.objectsInherited()));
        if (c.restoredGeneration() >= 0)
        {
            s.append(String.format("  restored generation %d: %d tasks restored, %d re-executed; restore %.2f s " +
                    "(read %.2f s, verify %.2f s), re-execution %.2f s%n", c.restoredGeneration(), c.restoredTasks(),
                c.reexecutedTasks(), c.restoreSeconds(), c.readSeconds(), c.verifySeconds(), c.reexecuteSeconds()));
        }
        return s.toString();
    }
}
