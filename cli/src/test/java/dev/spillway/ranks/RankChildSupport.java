package dev.spillway.ranks;

import dev.spillway.rdma.UcxTransport;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the rank tests need from the machine. */
public final class RankChildSupport
{
    private RankChildSupport()
    {
    }

    /** UCX must be installed: fails under CI=true, else skips, naming what is missing. */
    public static void requireUcx()
    {
        final String reason = UcxTransport.unavailableReason();
        if (reason != null)
        {
            if ("true".equalsIgnoreCase(System.getenv("CI")))
            {
                fail("CI=true but " + reason);
            }
            assumeTrue(false, reason);
        }
    }
}
