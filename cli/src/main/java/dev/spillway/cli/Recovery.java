package dev.spillway.cli;

import dev.spillway.ranks.GlobalCheckpoints;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code recovery} object of a relaunched job's {@code --json}: which ranks were lost, which global cut was
 * restored, and the time from the loss to resumed work in four parts. Detection and relaunch come from the times
 * {@code launch} passes in {@code SPILLWAY_RECOVERY}; restore and re-execution are the slowest rank's. Detection runs
 * from the launcher's sight of the death to the first survivor's; a SIGKILL closes the dead rank's connections at
 * once, so survivors may see it a few milliseconds before the launcher does: such a detection counts as 0.
 * Without a global checkpoint to restore, the whole job ran again: re-execution (and the total) are then null.
 */
final class Recovery
{
    private Recovery()
    {
    }

    /** @return the object, or null on a first launch ({@code SPILLWAY_INCARNATION} 0 or unset). */
    static Map<String, Object> of(final Map<String, String> env, final GlobalCheckpoints checkpoints,
        final long startMillis, final List<RankFigures> ranks)
    {
        final int incarnation = RankEnvironment.incarnation(env);
        if (incarnation == 0)
        {
            return null;
        }
        final Map<String, String> fields = fields(env.getOrDefault(LaunchedJob.RECOVERY_ENV, ""));
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("incarnation", incarnation);
        out.put("lost_ranks", lost(fields.get("lost")));
        out.put("restored_global_index", checkpoints.restoredIndex() < 0 ? null : checkpoints.restoredIndex());
        final Map<String, Object> seconds = new LinkedHashMap<>();
        final Double seen = between(fields.get("died_ms"), fields.get("detected_ms"));
        final Double detection = seen == null ? null : Math.max(0, seen);
        final Double relaunch = between(fields.get("detected_ms"), Long.toString(startMillis));
        final double restore = ranks.stream().mapToDouble(RankFigures::restoreS).max().orElse(0);
        // Without a global checkpoint the whole job ran again, and no rank knows how far its last run had come.
        final Double reexecution = checkpoints.restoredIndex() < 0 ? null :
            ranks.stream().mapToDouble(RankFigures::reexecuteS).max().orElse(0);
        seconds.put("detection", detection);
        seconds.put("relaunch", relaunch);
        seconds.put("restore", restore);
        seconds.put("reexecution", reexecution);
        seconds.put("total", detection == null || relaunch == null || reexecution == null ? null :
            detection + relaunch + restore + reexecution);
        out.put("recovery_s", seconds);
        return out;
    }

    private static Map<String, String> fields(final String text)
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String field : text.trim().split("\\s+"))
        {
            final int eq = field.indexOf('=');
            if (eq > 0)
            {
                fields.put(field.substring(0, eq), field.substring(eq + 1));
            }
        }
        return fields;
    }

    private static List<Integer> lost(final String text)
    {
        final List<Integer> lost = new ArrayList<>();
        if (text != null && !text.isEmpty())
        {
            for (final String r : text.split(","))
            {
                lost.add(Integer.parseInt(r));
            }
        }
        return lost;
    }

    private static Double between(final String fromMillis, final String toMillis)
    {
        return fromMillis == null || toMillis == null ? null :
            (Long.parseLong(toMillis) - Long.parseLong(fromMillis)) / 1e3;
    }
}
