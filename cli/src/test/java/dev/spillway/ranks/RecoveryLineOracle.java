package dev.spillway.ranks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The recovery line of a run's recovery session, recomputed from the ranks' {@code --trace-p2f} files alone,
 * without the protocol's code: by brute force over the transfers each rank had posted before it reported, in global
 * indices. Every rank cuts at the same global indices, so a transfer at global index {@code g} lies between the same
 * two cuts on both its ranks, and is logged iff it goes to a higher cluster (contiguous blocks of ranks). A rank that
 * restarts from the cut at {@code R} needs again every transfer to it at {@code g ≥ R}; if one is not logged, its
 * sender restarts from its newest cut at or before {@code g} that it had committed when it reported; and so on, until
 * nothing changes.
 */
final class RecoveryLineOracle
{
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final long START = -1;
    private static final Report NO_REPORT = new Report(List.of(), new TreeSet<>());

    /** One rank's view when it reported for the session: its posted transfers and its committed cuts. */
    private record Report(List<long[]> posted, TreeSet<Long> committed)
    {
    }

    private RecoveryLineOracle()
    {
    }

    /**
     * @param traces   the {@code --trace-p2f} directory.
     * @param ranks    how many ranks.
     * @param clusters how many clusters.
     * @param session  the session as rank 0's JSON gives it ({@code recovery_sessions[i]}): the ranks that gave no
     *                 report (lost, or sent back by an earlier line) restore the cut it names for them.
     * @return per rank that rolls back, the cut it restarts from (ranks that run on are absent); null when a rank
     *         reported from a later incarnation, whose restored state the trace does not hold.
     */
    static Map<Integer, Long> line(final Path traces, final int ranks, final int clusters, final JsonNode session)
        throws IOException
    {
        final long id = session.get("session").asLong();
        final Map<Integer, Report> reports = new HashMap<>();
        final Map<Integer, Long> restoring = new TreeMap<>();
        for (int r = 0; r < ranks; r++)
        {
            final Report report = report(traces.resolve("rank-" + r + ".jsonl"), r, id);
            if (report == NO_REPORT)
            {
                final JsonNode cut = session.get("rolled_back_to").get(Integer.toString(r));
                if (cut == null)
                {
                    throw new IllegalStateException("rank " + r + "'s trace holds no report for session " + id +
                        ", and the session does not send it back: " + session);
                }
                restoring.put(r, cut(cut));
            }
            else if (report == null)
            {
                return null;
            }
            else
            {
                reports.put(r, report);
            }
        }
        final Map<Integer, Long> line = new TreeMap<>(restoring);
        for (boolean changed = true; changed; )
        {
            changed = false;
            for (final Map.Entry<Integer, Report> e : reports.entrySet())
            {
                final int sender = e.getKey();
                for (final long[] t : e.getValue().posted())
                {
                    final int target = (int) t[0];
                    final long g = t[1];
                    final Long back = line.get(target);
                    final boolean logged = (long) sender * clusters / ranks < (long) target * clusters / ranks;
                    if (logged || back == null || g < back)
                    {
                        continue;
                    }
                    final long cut = e.getValue().committed().floor(g);
                    final Long mine = line.get(sender);
                    if (mine == null || cut < mine)
                    {
                        line.put(sender, cut);
                        changed = true;
                    }
                }
            }
        }
        return line;
    }

    /**
     * @return what {@code rank} had posted and committed when it reported for {@code session}, transfers as (target,
     *         global index); null if it reported from a later incarnation; {@link #NO_REPORT} if it did not report.
     */
    private static Report report(final Path trace, final int rank, final long session) throws IOException
    {
        // A send's half is recorded once it is submitted, which its posting may overtake: index them all first.
        final List<JsonNode> first = events(trace, true);
        final Map<String, Long> sends = new HashMap<>();
        for (final JsonNode n : first)
        {
            if (n.has("half") && n.get("half").asText().equals("send"))
            {
                sends.put(key(n.get("target").asInt(), n.get("object").asText(), n.get("version").asInt()),
                    n.get("global_index").asLong());
            }
        }
        final List<long[]> posted = new ArrayList<>();
        final TreeSet<Long> committed = new TreeSet<>(List.of(START));
        for (final JsonNode n : first)
        {
            if (n.has("posted"))
            {
                final int target = n.get("posted").asInt();
                final Long g = sends.get(key(target, n.get("object").asText(), n.get("version").asInt()));
                if (g == null)
                {
                    throw new IllegalStateException(trace + ": rank " + rank + " posted a send it never submitted: " +
                        n);
                }
                posted.add(new long[] {target, g});
            }
            else if (n.has("committed"))
            {
                committed.add(n.get("committed").asLong());
            }
            else if (n.has("reported") && n.get("reported").asLong() == session)
            {
                return new Report(posted, committed);
            }
        }
        final boolean later = events(trace, false).stream().anyMatch(n -> n.has("reported") &&
            n.get("reported").asLong() == session);
        return later ? null : NO_REPORT;
    }

    /** @return the trace's events (of its first incarnation only, if asked), less lines half written at a kill. */
    private static List<JsonNode> events(final Path trace, final boolean firstOnly) throws IOException
    {
        final List<JsonNode> events = new ArrayList<>();
        for (final String line : Files.readAllLines(trace))
        {
            final JsonNode n;
            try
            {
                n = MAPPER.readTree(line);
            }
            catch (final JsonProcessingException torn)
            {
                continue;
            }
            if (n == null || n.isMissingNode())
            {
                continue;
            }
            if (firstOnly && n.has("incarnation") && n.get("incarnation").asInt() > 0)
            {
                break;
            }
            events.add(n);
        }
        return events;
    }

    /**
     * @return the distinct sends that {@code rank}'s last incarnation posted and an earlier one of the same job had
     *         posted too: each was re-executed (a send skipped because its target held it is not posted at all).
     */
    static long repostedByLastIncarnation(final Path traces, final int rank) throws IOException
    {
        final List<Set<String>> byIncarnation = new ArrayList<>();
        for (final JsonNode n : events(traces.resolve("rank-" + rank + ".jsonl"), false))
        {
            if (n.has("incarnation"))
            {
                if (n.get("incarnation").asInt() == 0)
                {
                    byIncarnation.clear();
                }
                byIncarnation.add(new HashSet<>());
            }
            else if (n.has("posted") && !byIncarnation.isEmpty())
            {
                byIncarnation.get(byIncarnation.size() - 1).add(key(n.get("posted").asInt(),
                    n.get("object").asText(), n.get("version").asInt()));
            }
        }
        if (byIncarnation.size() < 2)
        {
            return 0;
        }
        final Set<String> earlier = new HashSet<>();
        byIncarnation.subList(0, byIncarnation.size() - 1).forEach(earlier::addAll);
        return byIncarnation.get(byIncarnation.size() - 1).stream().filter(earlier::contains).count();
    }

    /** @return a cut as rank 0's JSON names it: a global index, or "start". */
    static long cut(final JsonNode cut)
    {
        return cut.isNumber() ? cut.asLong() : START;
    }

    private static String key(final int target, final String object, final int version)
    {
        return target + " " + object + " v" + version;
    }
}
