package dev.spillway.ranks;

import dev.spillway.checkpoint.Cut;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The engine-level check of design note §C.4 (R1): a global checkpoint is consistent when every transfer's send and
 * receive lie on the same side of the cut on their ranks. For every global index that every rank committed a cut
 * at, and every transfer (a send and a receive matched by source, target, object and version), the send's local
 * sequence number is below its rank's frontier exactly when the receive's is below its own. It also checks what that
 * rests on: each committed frontier is the one requested at that index, and both halves of a transfer were submitted
 * at one global index (§C.2's precondition).
 */
final class CutChecker
{
    private CutChecker()
    {
    }

    /**
     * @param ranks     every rank's recording, indexed by rank.
     * @param committed every rank's committed cuts (from its checkpoint store), indexed by rank.
     * @return every violation found, each naming the cut, the ranks and the object; empty when consistent.
     */
    static List<String> violations(final List<CutRecording> ranks, final List<List<Cut>> committed)
    {
        final List<String> out = new ArrayList<>();
        final List<Map<Long, Long>> frontiers = new ArrayList<>();
        TreeSet<Long> everywhere = null;
        for (int r = 0; r < ranks.size(); r++)
        {
            final Map<Long, Long> f = committedFrontiers(r, committed.get(r), ranks.get(r).frontiers(), out);
            frontiers.add(f);
            if (everywhere == null)
            {
                everywhere = new TreeSet<>(f.keySet());
            }
            everywhere.retainAll(f.keySet());
        }
        final Map<CutRecording.Key, CutRecording.Half[]> transfers = transfers(ranks, out);
        for (final long g : everywhere == null ? new TreeSet<Long>() : everywhere)
        {
            for (final Map.Entry<CutRecording.Key, CutRecording.Half[]> t : transfers.entrySet())
            {
                final CutRecording.Half send = t.getValue()[0];
                final CutRecording.Half receive = t.getValue()[1];
                final long sendFrontier = frontiers.get(send.rank()).get(g);
                final long receiveFrontier = frontiers.get(receive.rank()).get(g);
                if (send.seq() < sendFrontier != receive.seq() < receiveFrontier)
                {
                    out.add("the global cut at index " + g + " splits the transfer of " + t.getKey() + " (task at " +
                        "global index " + send.globalIndex() + "): " + side(send, sendFrontier) + ", " +
                        side(receive, receiveFrontier));
                }
            }
        }
        return out;
    }

    /** @return one rank's committed global cuts, global index to frontier, each checked against its request. */
    private static Map<Long, Long> committedFrontiers(final int rank, final List<Cut> cuts,
        final TreeMap<Long, Long> requested, final List<String> out)
    {
        final Map<Long, Long> f = new HashMap<>();
        for (final Cut c : cuts)
        {
            if (!c.global())
            {
                continue;
            }
            final Long asked = requested.get(c.globalIndex());
            if (f.put(c.globalIndex(), c.frontier()) != null)
            {
                out.add("rank " + rank + " committed two cuts at global index " + c.globalIndex());
            }
            if (asked == null)
            {
                out.add("rank " + rank + " committed a cut at global index " + c.globalIndex() +
                    " that it never requested");
            }
            else if (asked != c.frontier())
            {
                out.add("rank " + rank + " committed its cut at global index " + c.globalIndex() + " with frontier #" +
                    c.frontier() + ", but requested it before local task #" + asked);
            }
        }
        return f;
    }

    /** @return every transfer, its send and its receive; reports halves without a match. */
    private static Map<CutRecording.Key, CutRecording.Half[]> transfers(final List<CutRecording> ranks,
        final List<String> out)
    {
        final Map<CutRecording.Key, CutRecording.Half[]> all = new HashMap<>();
        for (final CutRecording r : ranks)
        {
            for (final CutRecording.Half h : r.halves())
            {
                final CutRecording.Half[] pair = all.computeIfAbsent(h.key(), k -> new CutRecording.Half[2]);
                final int i = h.send() ? 0 : 1;
                if (pair[i] != null)
                {
                    out.add("the transfer of " + h.key() + " was submitted twice: " + pair[i] + " and " + h);
                }
                pair[i] = h;
            }
        }
        final Map<CutRecording.Key, CutRecording.Half[]> matched = new HashMap<>();
        for (final Map.Entry<CutRecording.Key, CutRecording.Half[]> t : all.entrySet())
        {
            final CutRecording.Half[] pair = t.getValue();
            if (pair[0] == null || pair[1] == null)
            {
                out.add("the transfer of " + t.getKey() + " has a " + (pair[0] == null ? pair[1] + " but no send" :
                    pair[0] + " but no receive"));
            }
            else if (pair[0].globalIndex() != pair[1].globalIndex())
            {
                out.add("the transfer of " + t.getKey() + " was submitted at global index " + pair[0].globalIndex() +
                    " on rank " + t.getKey().source() + " but " + pair[1].globalIndex() + " on rank " +
                    t.getKey().target());
            }
            else
            {
                matched.put(t.getKey(), pair);
            }
        }
        return matched;
    }

    private static String side(final CutRecording.Half h, final long frontier)
    {
        return "its " + h + " is " + (h.seq() < frontier ? "before" : "after") + " that rank's frontier #" + frontier;
    }
}
