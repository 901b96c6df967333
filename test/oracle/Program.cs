// The .NET oracle's command line. test/dotnet-oracle.test.ts drives it; every command writes its
// outputs or a JSON report, and any failure is one line on stderr (exit 2), never a stack trace.
using System.Net;
using System.Reflection;
using System.Runtime.Serialization;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Text.Json.Serialization;
using TextJson = System.Text.Json.JsonSerializer;
using SupportState.Contract;

namespace Oracle;

static class Program
{
    private const string Usage = """
        usage: oracle write    --seed N --count N --fixture FILE --confirmation FILE --out DIR
               oracle readback --seed N --count N --fixture FILE --confirmation FILE --in DIR --dotnet DIR --out FILE
               oracle wcf      --seed N --count N --fixture FILE --calls FILE --out FILE

          write     .NET's JSON (System.Text.Json) and SOAP (DataContractSerializer in a SOAP 1.1 message)
                    of the fixture record and of COUNT records generated from SEED, into DIR
          readback  reads --in DIR/json/{id}.json with System.Text.Json and --in DIR/soap/{id}.xml with
                    DataContractSerializer, and reports every value that differs from what was written;
                    the same for --dotnet DIR (what write wrote), as the platform's own baseline
          wcf       calls each reference URL in FILE ([{"id": …, "url": …/soap11}]) with a WCF client and
                    reports every value it reads that differs
          compressed  calls each URL in FILE ([{"id": …, "url": …, "wire": "json"|"soap", "record": "userDetails"|"confirmation"}])
                    offering gzip, deflate and br: records the Content-Encoding answered, then reads the
                    answer as .NET clients do (HttpClient with automatic decompression and System.Text.Json;
                    the WCF client) and reports every value that differs
        """;

    private static readonly Dictionary<string, (string[] Options, Action<Options> Run)> Commands = new()
    {
        ["write"] = (["seed", "count", "fixture", "confirmation", "out"], Write),
        ["readback"] = (["seed", "count", "fixture", "confirmation", "in", "dotnet", "out"], Readback),
        ["wcf"] = (["seed", "count", "fixture", "calls", "out"], CallWcf),
        ["compressed"] = (["seed", "count", "fixture", "confirmation", "calls", "out"], CallCompressed),
    };

    public static int Main(string[] args)
    {
        try
        {
            if (args.Length == 0 || args[0] is "-h" or "--help") { Console.Out.Write(Usage); return args.Length == 0 ? 2 : 0; }
            if (!Commands.TryGetValue(args[0], out var command)) throw new UsageException($"unknown command {args[0]} (see --help)");
            var options = Options.Parse(args.Skip(1), command.Options);
            command.Run(options);
            return 0;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine($"oracle: {OneLine(e)}");
            return 2;
        }
    }

    private static string OneLine(Exception e)
    {
        var message = e is UsageException or IOException ? e.Message : $"{e.GetType().Name}: {e.Message}";
        return Regex.Replace(message, @"\s+", " ").Trim();
    }

    /// <summary>Record id -> the record as .NET holds it: the fixture read by System.Text.Json from
    /// the reference's data, or a record generated from the seed.</summary>
    private static List<(string Id, UserDetailsResponse Record)> Records(Options o)
    {
        var seed = o.Int("seed");
        var count = o.Int("count");
        if (count < 0 || count > 10_000) throw new UsageException($"--count must be 0 to 10000, not {count}");
        var records = new List<(string, UserDetailsResponse)> { ("fixture", Wire.FromJson<UserDetailsResponse>(o.ReadText("fixture"))) };
        for (int i = 0; i < count; i++) records.Add((Generator.Id(i), Generator.Record(seed, i)));
        return records;
    }

    private static void Write(Options o)
    {
        var records = Records(o);
        var confirmation = Wire.FromJson<ConfirmEmailResponse>(o.ReadText("confirmation"));
        var dir = o.Path("out");
        Directory.CreateDirectory(System.IO.Path.Combine(dir, "json"));
        Directory.CreateDirectory(System.IO.Path.Combine(dir, "soap"));
        // The JSON is the data itself for the TypeScript side: System.Text.Json keeps a null
        // dictionary value (DefaultIgnoreCondition applies to members only).
        foreach (var (id, record) in records)
        {
            Reports.WriteText(System.IO.Path.Combine(dir, "json", $"{id}.json"), Wire.Json(record));
            Reports.WriteText(System.IO.Path.Combine(dir, "soap", $"{id}.xml"), Wire.SoapEnvelope(record));
        }
        Reports.WriteText(System.IO.Path.Combine(dir, "json", "confirmation.json"), Wire.Json(confirmation));
        Reports.Write(System.IO.Path.Combine(dir, "platform.json"), Platform.Facts(records));
    }

    private static void Readback(Options o)
    {
        var records = Records(o);
        var confirmation = Wire.FromJson<ConfirmEmailResponse>(o.ReadText("confirmation"));
        var reference = ReadBack(o.Path("in"), records, confirmation);
        // .NET's own outputs through the same readers: a value the platform cannot round-trip
        // through its own writer and reader is no fault of the reference.
        var own = ReadBack(o.Path("dotnet"), records, confirmation);
        Reports.Write(o.Path("out"), new
        {
            records = records.Count + 1,
            valuesCompared = reference.Values,
            mismatches = reference.Mismatches,
            dotnetOwnMismatches = own.Mismatches,
        });
    }

    /// <summary>Reads DIR/json/{id}.json with System.Text.Json and DIR/soap/{id}.xml with
    /// DataContractSerializer and compares every value with the record meant.</summary>
    private static (Dictionary<string, int> Values, List<Mismatch> Mismatches) ReadBack(
        string dir, List<(string Id, UserDetailsResponse Record)> records, ConfirmEmailResponse confirmation)
    {
        var values = new Dictionary<string, int> { ["System.Text.Json"] = 0, ["DataContractSerializer"] = 0 };
        var mismatches = new List<Mismatch>();
        void Judge(Comparison c, object expected, object actual, string root)
        {
            c.Records(expected, actual, root);
            values[c.Reader] += c.Values;
            mismatches.AddRange(c.Mismatches);
        }
        foreach (var (id, expected) in records)
        {
            Judge(new Comparison(id, "System.Text.Json"), expected, Wire.FromJson<UserDetailsResponse>(Read(dir, "json", $"{id}.json")), "UserDetailsResponse");
            Judge(new Comparison(id, "DataContractSerializer"), expected, Wire.FromSoapEnvelope<UserDetailsResponse>(Read(dir, "soap", $"{id}.xml")), "UserDetailsResponse");
        }
        Judge(new Comparison("confirmation", "System.Text.Json"), confirmation, Wire.FromJson<ConfirmEmailResponse>(Read(dir, "json", "confirmation.json")), "ConfirmEmailResponse");
        return (values, mismatches);
    }

    private static void CallWcf(Options o)
    {
        var expected = Records(o).ToDictionary(r => r.Id, r => r.Record);
        var calls = TextJson.Deserialize<List<Call>>(o.ReadText("calls"), Reports.Options)
            ?? throw new UsageException("--calls holds no list of calls");
        if (calls.Count == 0) throw new UsageException("--calls is empty");
        // The stock binding once: whether it accepts the Content-Type the spec gives.
        string stock;
        try { Wcf.Call(Wcf.Stock(), calls[0].Url); stock = "accepted"; }
        catch (Exception e) { stock = $"refused: {e.GetType().Name}: {OneLine(e).Split(". ")[0].Replace($"{e.GetType().Name}: ", "")}"; }
        var values = 0;
        var mismatches = new List<Mismatch>();
        foreach (var call in calls)
        {
            if (!expected.TryGetValue(call.Id, out var want)) throw new UsageException($"--calls names {call.Id}, which is neither fixture nor a generated record below --count");
            var got = Wcf.Call(Wcf.AcceptingApplicationXml(), call.Url);
            var c = new Comparison(call.Id, "WCF client");
            c.Records(want, got, "UserDetailsResponse");
            mismatches.AddRange(c.Mismatches);
            values += c.Values;
        }
        Reports.Write(o.Path("out"), new { stockBasicHttpBinding = stock, calls = calls.Count, valuesCompared = values, mismatches });
    }

    /// <summary>The reference's compressed answers read as .NET clients read them. First a request
    /// without decompression, offering what an automatically decompressing HttpClient offers, to see
    /// the Content-Encoding; then the record through the client.</summary>
    private static void CallCompressed(Options o)
    {
        var expected = Records(o).ToDictionary(r => r.Id, r => r.Record);
        var confirmation = Wire.FromJson<ConfirmEmailResponse>(o.ReadText("confirmation"));
        var calls = TextJson.Deserialize<List<CompressedCall>>(o.ReadText("calls"), Reports.Options)
            ?? throw new UsageException("--calls holds no list of calls");
        if (calls.Count == 0) throw new UsageException("--calls is empty");
        using var raw = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.None });
        using var decompressing = new HttpClient(new HttpClientHandler { AutomaticDecompression = DecompressionMethods.All });
        var encodings = new SortedDictionary<string, string>(StringComparer.Ordinal);
        var values = new SortedDictionary<string, int>(StringComparer.Ordinal);
        var mismatches = new List<Mismatch>();
        foreach (var call in calls)
        {
            var key = $"{call.Id} {call.Wire} {call.Record}";
            object want = call.Record == "confirmation" ? confirmation
                : expected.TryGetValue(call.Id, out var w) ? w : throw new UsageException($"--calls names {call.Id}, which is neither fixture nor a generated record below --count");
            using (var probe = Request(call))
            {
                probe.Headers.TryAddWithoutValidation("Accept-Encoding", "gzip, deflate, br");
                using var answer = raw.Send(probe);
                encodings[key] = answer.Content.Headers.ContentEncoding.Count == 0 ? "identity" : string.Join(", ", answer.Content.Headers.ContentEncoding);
            }
            object? got;
            string reader;
            if (call.Wire == "soap")
            {
                reader = "WCF client (decompressing)";
                got = Wcf.Call(Wcf.AcceptingApplicationXml(), call.Url);
            }
            else
            {
                reader = "System.Text.Json (HttpClient, decompressing)";
                using var request = Request(call);
                using var answer = decompressing.Send(request);
                var bytes = answer.Content.ReadAsByteArrayAsync().GetAwaiter().GetResult();
                got = call.Record == "confirmation" ? Wire.FromJson<ConfirmEmailResponse>(bytes) : Wire.FromJson<UserDetailsResponse>(bytes);
            }
            var c = new Comparison(call.Id, reader);
            c.Records(want, got, want.GetType().Name);
            mismatches.AddRange(c.Mismatches);
            values[reader] = values.GetValueOrDefault(reader) + c.Values;
        }
        Reports.Write(o.Path("out"), new { contentEncodings = encodings, calls = calls.Count, valuesCompared = values, mismatches });
    }

    private static HttpRequestMessage Request(CompressedCall call) => call.Wire == "soap"
        ? new HttpRequestMessage(HttpMethod.Post, call.Url)
        {
            Content = new StringContent($"<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><ImpersonateLogoutRequest xmlns=\"{ContractNamespaces.Request}\"/></s:Body></s:Envelope>",
                System.Text.Encoding.UTF8, "text/xml"),
            Headers = { { "SOAPAction", "\"ImpersonateLogoutRequest\"" } },
        }
        : new HttpRequestMessage(HttpMethod.Post, call.Url) { Content = new StringContent("{}", System.Text.Encoding.UTF8, "application/json") };

    private sealed record CompressedCall(string Id, string Url, string Wire, string Record);

    /// <summary>A file's bytes as sent: readers get bytes, as a client gets them off the wire.</summary>
    private static byte[] Read(string dir, string sub, string file)
    {
        var path = System.IO.Path.Combine(dir, sub, file);
        if (!File.Exists(path)) throw new UsageException($"{path} does not exist");
        return File.ReadAllBytes(path);
    }

    private sealed record Call(string Id, string Url);
}

sealed class UsageException(string message) : Exception(message);

/// <summary>--name value pairs, each one the command knows.</summary>
sealed class Options
{
    private readonly Dictionary<string, string> _values = [];

    public static Options Parse(IEnumerable<string> args, string[] known)
    {
        var o = new Options();
        using var e = args.GetEnumerator();
        while (e.MoveNext())
        {
            var name = e.Current;
            if (!name.StartsWith("--") || name.Length < 3) throw new UsageException($"expected an option, not {name} (see --help)");
            if (!known.Contains(name[2..])) throw new UsageException($"unknown option {name} for this command (see --help)");
            if (!e.MoveNext()) throw new UsageException($"{name} needs a value");
            if (!o._values.TryAdd(name[2..], e.Current)) throw new UsageException($"{name} is given twice");
        }
        return o;
    }

    public string Path(string name) =>
        _values.TryGetValue(name, out var v) && v.Length > 0 ? v : throw new UsageException($"--{name} is required (see --help)");

    public int Int(string name) => int.TryParse(Path(name), out var n) ? n : throw new UsageException($"--{name} must be an integer, not {_values[name]}");

    public string ReadText(string name)
    {
        var path = Path(name);
        return File.Exists(path) ? File.ReadAllText(path) : throw new UsageException($"--{name} {path} does not exist");
    }
}

static class Reports
{
    public static readonly JsonSerializerOptions Options = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        PropertyNameCaseInsensitive = true,
        // Reports are read by people: keep non-ASCII and markup as they are (still valid JSON).
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    public static void Write(string path, object report) => WriteText(path, TextJson.Serialize(report, Options) + "\n");

    public static void WriteText(string path, string text)
    {
        var dir = System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(path));
        if (dir is not null && !Directory.Exists(dir)) throw new UsageException($"cannot write {path}: {dir} does not exist");
        File.WriteAllText(path, text, new System.Text.UTF8Encoding(false));
    }
}

/// <summary>What the platform did on small probes, recorded as evidence for the notes and the checks.</summary>
static class Platform
{
    [DataContract(Namespace = ContractNamespaces.Login)]
    public sealed class NamedMember { [DataMember(Name = "HXUserTypeCode")] public int HXUserTypeCode { get; set; } = 7; }

    [DataContract(Namespace = ContractNamespaces.Login)]
    public sealed class PlainMember { [DataMember] public int HXUserTypeCode { get; set; } = 7; }

    public sealed class When { public DateTime Value { get; set; } public Guid Id { get; set; } }

    public sealed class Code { public SystemCodeEnum SystemCode { get; set; } }

    public static object Facts(List<(string Id, UserDetailsResponse Record)> records)
    {
        var spec = Wire.SpecOptions();
        var camelEnums = new JsonSerializerOptions { Converters = { new JsonStringEnumConverter(JsonNamingPolicy.CamelCase) } };
        var defaults = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };
        var when = new When { Value = new DateTime(2024, 2, 29, 12, 0, 0), Id = new Guid("0f8fad5b-d9cb-469f-a165-70867728950e") };
        return new
        {
            packages = new Dictionary<string, string?>
            {
                ["System.Text.Json"] = Version(typeof(TextJson)),
                ["System.ServiceModel.Primitives"] = Version(typeof(System.ServiceModel.ChannelFactory)),
                ["System.Private.DataContractSerialization"] = $"net{Environment.Version.Major}",
            },
            systemTextJsonSettings = new
            {
                propertyNamingPolicy = "CamelCase",
                defaultIgnoreCondition = spec.DefaultIgnoreCondition.ToString(),
                unmappedMemberHandling = spec.UnmappedMemberHandling.ToString(),
                converters = spec.Converters.Select(c => c.GetType().Name).ToArray(),
                requiredMembers = "every value-type member of a contract record",
            },
            probes = new
            {
                dataMemberWithName = Wire.Json(new NamedMember()),
                dataMemberWithoutName = Wire.Json(new PlainMember()),
                defaultDatetimeAndGuid = TextJson.Serialize(when, defaults),
                specDatetimeAndGuid = TextJson.Serialize(when, spec),
                camelCaseEnumConverterWrites = TextJson.Serialize(new Code(), camelEnums),
                enumNameReadIgnoringCase = Outcome(() => TextJson.Deserialize<Code>("{\"systemCode\":\"unspecified\"}", spec)!.SystemCode.ToString()),
                bomBeforeJson = new
                {
                    deserializeBytes = Outcome(() => Wire.FromJson<Code>(Bom("{\"systemCode\":\"Unspecified\"}")).SystemCode.ToString()),
                    jsonDocumentParse = Outcome(() => { using var d = JsonDocument.Parse(Bom("{}").AsMemory()); return d.RootElement.ValueKind.ToString(); }),
                    deserializeStream = Outcome(() => TextJson.Deserialize<Code>(new MemoryStream(Bom("{\"systemCode\":\"Unspecified\"}")), spec)!.SystemCode.ToString()),
                },
                soapWithAction = new
                {
                    header = Regex.Match(Wire.SoapEnvelope(new PlainMember(), "ImpersonateLogoutRequest"), "<s:Header>.*</s:Header>").Value,
                },
                dictionary = DictionaryProbe(records),
            },
        };
    }

    private static byte[] Bom(string json) => [0xEF, 0xBB, 0xBF, .. System.Text.Encoding.UTF8.GetBytes(json)];

    /// <summary>What a call returned, or the exception type it threw.</summary>
    private static string Outcome(Func<string> f)
    {
        try { return $"read: {f()}"; }
        catch (Exception e) { return $"throws {e.GetType().Name}"; }
    }

    private static string? Version(Type t) => t.Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0];

    /// <summary>The entry name DataContractSerializer writes for the payment settings, and how many
    /// entries it reads back when they carry the name the contract used to hard-code.</summary>
    private static object DictionaryProbe(List<(string Id, UserDetailsResponse Record)> records)
    {
        var (id, record) = records.FirstOrDefault(r => r.Record.ProviderPaymentSettings is { Count: > 0 });
        if (record is null) return new { note = "no record with payment settings" };
        var soap = Wire.SoapEnvelope(record);
        var name = Regex.Match(soap, @"KeyValueOfstringProviderPaymentSettings\w*").Value;
        const string oldName = "KeyValueOfstringProviderPaymentSettingsbYn_SOvr1";
        var read = Wire.FromSoapEnvelope<UserDetailsResponse>(soap.Replace(name, oldName));
        return new
        {
            entryName = name,
            record = id,
            entries = record.ProviderPaymentSettings!.Count,
            entriesReadWhenNamed = new Dictionary<string, int> { [oldName] = read.ProviderPaymentSettings?.Count ?? 0 },
        };
    }
}
