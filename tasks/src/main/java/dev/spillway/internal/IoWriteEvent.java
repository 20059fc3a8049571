package dev.spillway.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one block written to the NVMe tier, for an eviction or a write-behind. */
@Name("dev.spillway.IoWrite")
@Label("NVMe write")
@Category("Spillway")
@StackTrace(false)
final class IoWriteEvent extends Event
{
    @Label("Object")
    String tag;
    @Label("Bytes")
    @DataAmount
    long bytes;
    @Label("Keeps buffer")
    boolean writeBehind;
}
