package dev.a2acore;

/**
 * The one implementation behind every {@link NativeEnum}: per enum class, the C number of each
 * constant (from the generated {@link AbiEnums}, matched by name, so a constant the header lacks
 * fails at the first use and in NativeEnumTest) and its wire name (the library's
 * {@code a2a_vocab_name}, read once).
 */
final class NativeEnums {
    private NativeEnums() {}

    /** Numbers and wire names of one enum class, indexed by ordinal. */
    private static final class Table {
        final int[] codes;
        volatile String[] wireNames;

        Table(Class<?> c) {
            String[] names = AbiEnums.names(c);
            int[] cCodes = AbiEnums.codes(c);
            if (names == null) {
                throw new IllegalStateException(c.getName() + " mirrors no C enum (scripts/gen-bindings.py)");
            }
            Object[] constants = c.getEnumConstants();
            codes = new int[constants.length];
            for (int i = 0; i < constants.length; i++) {
                String name = ((Enum<?>) constants[i]).name();
                int k = java.util.Arrays.asList(names).indexOf(name);
                if (k < 0) {
                    throw new IllegalStateException(c.getSimpleName() + "." + name
                        + " is not in include/a2a_core.h (scripts/gen-bindings.py)");
                }
                codes[i] = cCodes[k];
            }
        }

        String[] wireNames(Class<?> c) {
            String[] w = wireNames;
            if (w == null) {
                w = new String[codes.length];
                for (int i = 0; i < codes.length; i++) {
                    w[i] = AbiEnums.wireName(c, codes[i]);
                }
                wireNames = w;
            }
            return w;
        }
    }

    private static final ClassValue<Table> TABLES = new ClassValue<>() {
        @Override
        protected Table computeValue(Class<?> c) {
            return new Table(c);
        }
    };

    /** The C number of {@code e}. */
    static int code(Enum<?> e) {
        return TABLES.get(e.getDeclaringClass()).codes[e.ordinal()];
    }

    /** The wire name of {@code e}. */
    static String wireName(Enum<?> e) {
        Class<?> c = e.getDeclaringClass();
        return TABLES.get(c).wireNames(c)[e.ordinal()];
    }
}
