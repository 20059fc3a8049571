package dev.spillway.io;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The JVM flags that Chronicle Map (the stores' index) needs on Java 17 and later, and a check that they were given,
 * so that a missing flag fails with a list of flags instead of deep inside Chronicle.
 */
public final class JvmAccess
{
    /** Every flag, as the root pom's {@code spillway.jvm.flags} and the {@code spillway} script pass them. */
    public static final List<String> FLAGS = List.of(
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true",
        "-Dchronicle.announcer.disable=true");

    private JvmAccess()
    {
    }

    /** @return the module flags of {@link #FLAGS} this JVM lacks (flags for modules it does not have are met). */
    public static List<String> missing()
    {
        final Module chronicle = JvmAccess.class.getClassLoader().getUnnamedModule();
        final List<String> missing = new ArrayList<>();
        for (final String flag : FLAGS)
        {
            final boolean opens = flag.startsWith("--add-opens=");
            if (!opens && !flag.startsWith("--add-exports="))
            {
                continue;
            }
            final String target = flag.substring(flag.indexOf('=') + 1, flag.lastIndexOf('='));
            final String moduleName = target.substring(0, target.indexOf('/'));
            final String pkg = target.substring(target.indexOf('/') + 1);
            final Optional<Module> module = ModuleLayer.boot().findModule(moduleName);
            if (module.isPresent() && !(opens ? module.get().isOpen(pkg, chronicle) :
                module.get().isExported(pkg, chronicle)))
            {
                missing.add(flag);
            }
        }
        return missing;
    }

    /** @throws IllegalStateException naming the flags to add, if any is missing. */
    static void require(final StoreKind kind)
    {
        final List<String> missing = missing();
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("the " + kind.name().toLowerCase(java.util.Locale.ROOT) + " store " +
                "indexes blocks with Chronicle Map, which needs these JVM flags (missing: " + missing.size() +
                "): " + String.join(" ", FLAGS) + "; see the README's 'Embedding' section for Maven and Gradle");
        }
    }
}
