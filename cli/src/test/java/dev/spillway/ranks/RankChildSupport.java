package dev.spillway.ranks;

import dev.spillway.cli.CiOrSkip;
import dev.spillway.rdma.UcxTransport;

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
        CiOrSkip.require(reason == null, reason);
    }
}
