// Value-by-value comparison of two records along their [DataMember]s, at every depth: what a .NET
// reader got against what was meant. DateTimes compare ticks and Kind, strings ordinally.
using System.Collections;
using System.Reflection;
using System.Runtime.Serialization;
using System.Text.Json;

namespace Oracle;

sealed record Mismatch(string Id, string Reader, string Path, string Expected, string Actual);

sealed class Comparison(string id, string reader)
{
    public string Reader => reader;
    public List<Mismatch> Mismatches { get; } = [];
    /// <summary>Leaf values compared (null members, items and entries included).</summary>
    public int Values { get; private set; }

    public void Records(object? expected, object? actual, string path)
    {
        if (expected is null || actual is null)
        {
            Leaf(expected, actual, path);
            return;
        }
        var t = expected.GetType();
        if (t.GetCustomAttribute<DataContractAttribute>() is null)
        {
            if (expected is IDictionary em && actual is IDictionary am) Dictionaries(em, am, path);
            else if (expected is IList el && actual is IList al) Lists(el, al, path);
            else Leaf(expected, actual, path);
            return;
        }
        foreach (var p in t.GetProperties().Where(p => p.GetCustomAttribute<DataMemberAttribute>() is not null))
            Records(p.GetValue(expected), p.GetValue(actual), $"{path}.{p.Name}");
    }

    private void Lists(IList expected, IList actual, string path)
    {
        if (expected.Count != actual.Count) Add(path, $"{expected.Count} items", $"{actual.Count} items");
        for (int i = 0; i < Math.Min(expected.Count, actual.Count); i++) Records(expected[i], actual[i], $"{path}[{i}]");
    }

    private void Dictionaries(IDictionary expected, IDictionary actual, string path)
    {
        foreach (var key in expected.Keys)
        {
            var at = $"{path}[{Show(key)}]";
            if (actual.Contains(key)) Records(expected[key], actual[key], at);
            else { Values++; Add(at, Show(expected[key]), "no entry"); }
        }
        foreach (var key in actual.Keys)
            if (!expected.Contains(key)) { Values++; Add($"{path}[{Show(key)}]", "no entry", Show(actual[key])); }
    }

    private void Leaf(object? expected, object? actual, string path)
    {
        Values++;
        var same = (expected, actual) switch
        {
            (null, null) => true,
            (DateTime e, DateTime a) => e.Ticks == a.Ticks && e.Kind == a.Kind,
            (string e, string a) => string.Equals(e, a, StringComparison.Ordinal),
            (null, _) or (_, null) => false,
            _ => expected.Equals(actual),
        };
        if (!same) Add(path, Show(expected), Show(actual));
    }

    private void Add(string path, string expected, string actual) => Mismatches.Add(new(id, reader, path, expected, actual));

    /// <summary>One line per value: strings JSON-quoted, datetimes as "o" with their Kind, guids dashed.</summary>
    public static string Show(object? v) => v switch
    {
        null => "null",
        string s => JsonSerializer.Serialize(s, Reports.Options),
        DateTime d => $"{d:o} ({d.Kind})",
        Guid g => g.ToString("D"),
        bool b => b ? "true" : "false",
        IList l => $"[{l.Count} items]",
        IDictionary m => $"{{{m.Count} entries}}",
        _ when v.GetType().GetCustomAttribute<DataContractAttribute>() is not null => $"{{{v.GetType().Name}}}",
        _ => Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture) ?? "?",
    };
}
