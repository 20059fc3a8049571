package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code launch --crash-at RANK:POINT[:HIT][@INCARNATION]} arms one rank of one incarnation, or names the culprit. */
class CrashSpecTest
{
    @Test
    void armsOnlyTheNamedRankAndIncarnation()
    {
        final List<CrashSpec> specs = List.of(CrashSpec.parse("1:transfer.send:3", 3),
            CrashSpec.parse("2:restore.verify@1", 3));
        assertEquals(List.of("-Dspillway.crashAt=transfer.send", "-Dspillway.crashAtHit=3"),
            CrashSpec.flags(specs, 1, 0));
        assertEquals(List.of(), CrashSpec.flags(specs, 1, 1), "a relaunch does not park again");
        assertEquals(List.of("-Dspillway.crashAt=restore.verify", "-Dspillway.crashAtHit=1"),
            CrashSpec.flags(specs, 2, 1));
        assertEquals(List.of(), CrashSpec.flags(specs, 0, 0));
    }

    @Test
    void aMalformedSpecNamesItself()
    {
        for (final String bad : List.of("transfer.send", "3:transfer.send", "1:", "1:x:0", "1:x@-1", "a:x"))
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CrashSpec.parse(bad, 3), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }
}
