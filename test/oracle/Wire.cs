// The two wires as the .NET platform writes and reads them: System.Text.Json configured as a service
// for this spec would be, and DataContractSerializer inside a WCF SOAP 1.1 message for SOAP.
using System.Globalization;
using System.Runtime.Serialization;
using System.ServiceModel.Channels;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using System.Xml;

namespace Oracle;

static class Wire
{
    /// <summary>System.Text.Json as a service for this spec is configured, each setting with its reason.</summary>
    public static JsonSerializerOptions SpecOptions() => new()
    {
        // The spec's JSON names are camelCase; this policy yields every one (hxUserTypeCode, isARASHybrid, jToken).
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        // Null members are left out: the spec's strings, arrays and objects may be absent.
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        Converters =
        {
            // 7-digit zone-less datetimes (2 Types); STJ's own format trims the fraction.
            new SpecDateTimeConverter(),
            // Undashed guids (2 Types); STJ writes them dashed.
            new UndashedGuidConverter(),
            // Enums by name, exactly as declared (no naming policy, no integers).
            new JsonStringEnumConverter(namingPolicy: null, allowIntegerValues: false),
        },
        // Strict reading: a member the contract does not name is an error, not ignored.
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
        // The spec's value members (integers, booleans, datetimes, guids, enums) are always present.
        TypeInfoResolver = new DefaultJsonTypeInfoResolver { Modifiers = { RequireValueMembers } },
        // Settings carries [JsonIgnore] in the C# export (fixtures/dotnet/Contract.cs): SOAP only.
    };

    /// <summary>Value-type members of the contract's records are required when reading.</summary>
    private static void RequireValueMembers(JsonTypeInfo info)
    {
        if (info.Kind != JsonTypeInfoKind.Object || info.Type.GetCustomAttributes(typeof(DataContractAttribute), false).Length == 0) return;
        foreach (var p in info.Properties)
            if (p.PropertyType.IsValueType && Nullable.GetUnderlyingType(p.PropertyType) is null) p.IsRequired = true;
    }

    public static string Json<T>(T value) => JsonSerializer.Serialize(value, SpecOptions());

    /// <summary>Reads UTF-8 bytes as a client does (Deserialize of a byte array: a leading BOM is an error).</summary>
    public static T FromJson<T>(byte[] utf8) =>
        JsonSerializer.Deserialize<T>(utf8, SpecOptions()) ?? throw new JsonException("the JSON is null");

    public static T FromJson<T>(string json) => FromJson<T>(Encoding.UTF8.GetBytes(json));

    /// <summary>The SOAP 1.1 envelope a .NET service answers: a WCF Message with no action (so no
    /// Header) whose body is the record written by DataContractSerializer. UTF-8, no BOM, no declaration.</summary>
    public static string SoapEnvelope<T>(T record, string? action = null)
    {
        using var message = Message.CreateMessage(MessageVersion.Soap11, action, record, new DataContractSerializer(typeof(T)));
        var buffer = new MemoryStream();
        using (var writer = XmlDictionaryWriter.CreateTextWriter(buffer, new UTF8Encoding(false), ownsStream: false))
        {
            message.WriteMessage(writer);
        }
        return Encoding.UTF8.GetString(buffer.ToArray());
    }

    /// <summary>Reads a SOAP 1.1 envelope's body with DataContractSerializer, as a WCF client does.</summary>
    public static T FromSoapEnvelope<T>(string xml) => FromSoapEnvelope<T>(Encoding.UTF8.GetBytes(xml));

    public static T FromSoapEnvelope<T>(byte[] xml)
    {
        using var reader = XmlDictionaryReader.CreateTextReader(xml, XmlDictionaryReaderQuotas.Max);
        using var message = Message.CreateMessage(reader, int.MaxValue, MessageVersion.Soap11);
        using var body = message.GetReaderAtBodyContents();
        return (T)new DataContractSerializer(typeof(T)).ReadObject(body)!;
    }
}

/// <summary>The spec's JSON datetime: yyyy-MM-ddTHH:mm:ss.fffffff, seven digits, no zone; read exactly that.</summary>
sealed class SpecDateTimeConverter : JsonConverter<DateTime>
{
    private const string Format = "yyyy-MM-dd'T'HH:mm:ss.fffffff";

    public override DateTime Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var text = reader.GetString();
        return DateTime.TryParseExact(text, Format, CultureInfo.InvariantCulture, DateTimeStyles.None, out var value)
            ? value
            : throw new JsonException($"not a 7-digit zone-less datetime: {text}");
    }

    public override void Write(Utf8JsonWriter writer, DateTime value, JsonSerializerOptions options) =>
        writer.WriteStringValue(value.ToString(Format, CultureInfo.InvariantCulture));
}

/// <summary>The spec's JSON guid: 32 hex digits, no dashes ("N"); read exactly that (either case).</summary>
sealed class UndashedGuidConverter : JsonConverter<Guid>
{
    public override Guid Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var text = reader.GetString();
        return Guid.TryParseExact(text, "N", out var value) ? value : throw new JsonException($"not an undashed guid: {text}");
    }

    public override void Write(Utf8JsonWriter writer, Guid value, JsonSerializerOptions options) => writer.WriteStringValue(value.ToString("N"));
}
