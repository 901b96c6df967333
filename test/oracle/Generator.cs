// Records generated in .NET from a seed, so that every value is born a native .NET value (ticks,
// Guid bytes, int.MinValue, DayOfWeek) and .NET's outputs owe nothing to our reading of JSON.
// The generator walks the contract types by reflection, so it follows fixtures/dotnet/Contract.cs.
using System.Collections;
using System.Reflection;
using System.Runtime.Serialization;
using System.Text;
using SupportState.Contract;

namespace Oracle;

/// <summary>SplitMix64: a fixed algorithm, so a seed gives the same records on every .NET version
/// (System.Random's seeded sequence is not promised to stay the same across versions).</summary>
sealed class Rng(ulong seed)
{
    private ulong _state = seed;

    public ulong Next()
    {
        _state += 0x9E3779B97F4A7C15UL;
        var z = _state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    public int Below(int n) => (int)(Next() % (ulong)n);
    public bool OneIn(int n) => Below(n) == 0;
    public T Pick<T>(IReadOnlyList<T> items) => items[Below(items.Count)];
    public long Between(long lo, long hi) => lo + (long)(Next() % (ulong)(hi - lo + 1));
}

/// <summary>How a record is filled: the first three records are boundaries, the rest random.</summary>
enum Mode { AllNull, Extremes, Specials, Random }

static class Generator
{
    /// <summary>Strings that trouble serialisers: XML markup and entities, CDATA's end, every kind of
    /// line break, JSON escapes, C1 controls (legal XML, escaped by System.Text.Json), a BOM character,
    /// combining and astral characters. Characters XML 1.0 cannot carry (most C0 controls, U+FFFE,
    /// U+FFFF, lone surrogates) are left out: DataContractSerializer would write an ill-formed document.</summary>
    public static readonly string[] Specials =
    [
        "", " ", "a", "&", "<", ">", "\"", "'", "&amp;", "]]>", "<![CDATA[x]]>", "\r\n", "\r", "\n", "\t",
        "  padded  ", "日本語", "e\u0301", "é", "😀", "𝄞", "\u2028\u2029", "\u007f", "\u0085", "\u00a0",
        "\ufeff", "\\", "/", "</script>", "{\"json\":true}", "Zürich & <Co>", "null", "true", "0", "i:nil",
    ];

    private static readonly DateTime[] Dates =
    [
        DateTime.MinValue,                                        // 0001-01-01T00:00:00
        DateTime.MaxValue,                                        // 9999-12-31T23:59:59.9999999
        new DateTime(1, 1, 1).AddTicks(1),
        new DateTime(9999, 12, 31),
        new DateTime(2024, 2, 29, 12, 0, 0).AddTicks(1),          // leap day, one tick
        new DateTime(2000, 2, 29),                                // leap day of a century year
        new DateTime(1900, 2, 28, 23, 59, 59),                    // 1900 is no leap year
        new DateTime(2019, 3, 1, 8, 15, 30, 500),                 // a fraction with trailing zeros
        new DateTime(2026, 12, 21, 19, 41, 0).AddTicks(1234567),
    ];

    private static readonly int[] Ints = [int.MinValue, int.MaxValue, 0, -1, 1, 2024];

    public static string Id(int index) => $"g{index:D3}";

    public static UserDetailsResponse Record(int seed, int index)
    {
        var rng = new Rng(((ulong)(uint)seed << 32) ^ (ulong)(uint)index ^ 0xD1B54A32D192ED03UL);
        var mode = index switch { 0 => Mode.AllNull, 1 => Mode.Extremes, 2 => Mode.Specials, _ => Mode.Random };
        var record = (UserDetailsResponse)Fill(typeof(UserDetailsResponse), rng, mode, 0)!;
        record.Settings = null; // the spec's Settings is nil in every response
        return record;
    }

    private static IEnumerable<PropertyInfo> Members(Type t) =>
        t.GetProperties().Where(p => p.GetCustomAttribute<DataMemberAttribute>() is not null);

    private static object? Fill(Type t, Rng rng, Mode mode, int depth)
    {
        var o = Activator.CreateInstance(t)!;
        var i = 0;
        foreach (var p in Members(t)) p.SetValue(o, Value(p.PropertyType, IsNullable(p), rng, mode, depth, i++));
        return o;
    }

    private static bool IsNullable(PropertyInfo p) =>
        new NullabilityInfoContext().Create(p).WriteState == NullabilityState.Nullable;

    private static object? Value(Type t, bool nullable, Rng rng, Mode mode, int depth, int slot)
    {
        if (nullable && (mode == Mode.AllNull || (mode == Mode.Random && rng.OneIn(7)))) return null;
        if (t == typeof(string)) return Text(rng, mode, slot);
        if (t == typeof(int)) return mode switch { Mode.AllNull => int.MinValue, Mode.Extremes => int.MaxValue, _ => rng.OneIn(2) ? rng.Pick(Ints) : (int)rng.Next() };
        if (t == typeof(bool)) return mode switch { Mode.AllNull => false, Mode.Extremes => true, _ => rng.OneIn(2) };
        if (t == typeof(DateTime)) return Date(rng, mode, slot);
        if (t == typeof(Guid)) return mode switch { Mode.AllNull => Guid.Empty, Mode.Extremes => Guid.Parse("ffffffff-ffff-ffff-ffff-ffffffffffff"), _ => NewGuid(rng) };
        if (t.IsEnum) { var values = Enum.GetValues(t); return values.GetValue(mode == Mode.Random ? rng.Below(values.Length) : slot % values.Length); }
        if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(List<>)) return List(t, rng, mode, depth);
        if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(Dictionary<,>)) return Map(t, rng, mode, depth);
        return Fill(t, rng, mode, depth + 1);
    }

    private static string Text(Rng rng, Mode mode, int slot)
    {
        if (mode == Mode.Extremes) return "";
        if (mode == Mode.Specials) return Specials[slot % Specials.Length];
        var sb = new StringBuilder();
        for (int n = rng.Below(4); n >= 0; n--)
            sb.Append(rng.OneIn(2) ? rng.Pick(Specials) : Letters(rng));
        return sb.ToString();
    }

    private static string Letters(Rng rng)
    {
        const string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@ ";
        var chars = new char[1 + rng.Below(10)];
        for (int i = 0; i < chars.Length; i++) chars[i] = alphabet[rng.Below(alphabet.Length)];
        return new string(chars);
    }

    private static DateTime Date(Rng rng, Mode mode, int slot) => mode switch
    {
        Mode.AllNull => DateTime.MinValue,
        Mode.Extremes => DateTime.MaxValue,
        Mode.Specials => Dates[slot % Dates.Length],
        _ => rng.Below(3) switch
        {
            0 => rng.Pick(Dates),
            1 => new DateTime(rng.Between(0, DateTime.MaxValue.Ticks / TimeSpan.TicksPerSecond) * TimeSpan.TicksPerSecond), // whole seconds
            _ => new DateTime(rng.Between(0, DateTime.MaxValue.Ticks)),                                                      // any tick
        },
    };

    private static Guid NewGuid(Rng rng)
    {
        var bytes = new byte[16];
        BitConverter.TryWriteBytes(bytes.AsSpan(0, 8), rng.Next());
        BitConverter.TryWriteBytes(bytes.AsSpan(8, 8), rng.Next());
        return new Guid(bytes);
    }

    private static int Count(Rng rng, Mode mode) => mode switch
    {
        Mode.Extremes => 0,
        Mode.Specials => 3,
        // Mostly a few items, sometimes none, now and then a long list.
        _ => rng.Below(30) switch { < 3 => 0, 3 => 20 + rng.Below(20), _ => 1 + rng.Below(5) },
    };

    private static object List(Type t, Rng rng, Mode mode, int depth)
    {
        var item = t.GetGenericArguments()[0];
        var list = (IList)Activator.CreateInstance(t)!;
        // Every day name, in order, in the Specials record.
        var count = item == typeof(DayOfWeek) && mode == Mode.Specials ? 7 : Count(rng, mode);
        for (int i = 0; i < count; i++) list.Add(Value(item, false, rng, mode, depth + 1, i));
        return list;
    }

    private static object Map(Type t, Rng rng, Mode mode, int depth)
    {
        var valueType = t.GetGenericArguments()[1];
        var map = (IDictionary)Activator.CreateInstance(t)!;
        var count = Math.Min(Count(rng, mode), 6);
        for (int i = 0; i < count; i++)
        {
            var key = mode == Mode.Specials ? Specials[(i * 7) % Specials.Length] : Text(rng, mode, i);
            if (map.Contains(key)) continue;
            // A null value: DataContractSerializer writes a nil Value, System.Text.Json writes null.
            var nullValue = mode == Mode.Specials ? i == count - 1 : rng.OneIn(6);
            map[key] = nullValue ? null : Fill(valueType, rng, mode, depth + 1);
        }
        return map;
    }
}
