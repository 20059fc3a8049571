package dev.spillway.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one block read from the NVMe tier. */
@Name("dev.spillway.IoRead")
@Label("NVMe read")
@Category("Spillway")
@StackTrace(false)
final class IoReadEvent extends Event
{
    @Label("Object")
    String tag;
    @Label("Bytes")
    @DataAmount
    long bytes;
}
