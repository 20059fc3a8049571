package dev.spillway.internal;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: an object chosen as eviction victim. */
@Name("dev.spillway.Eviction")
@Label("Eviction")
@Category("Spillway")
@StackTrace(false)
final class EvictionEvent extends Event
{
    @Label("Object")
    String tag;
    @Label("Dirty")
    boolean dirty;
    @Label("Next use")
    long nextUse;
}
