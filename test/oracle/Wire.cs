// The two wires as the .NET platform writes and reads them: ServiceStack.Text for JSON, and
// DataContractSerializer inside a WCF SOAP 1.1 message for SOAP (as ServiceStack's /soap11 does).
using System.Runtime.Serialization;
using System.ServiceModel.Channels;
using System.Text;
using System.Xml;
using ServiceStack.Text;

namespace Oracle;

static class Wire
{
    /// <summary>ServiceStack.Text configured as a ServiceStack service serving this spec.</summary>
    public static Config SpecConfig() => new()
    {
        // The spec's JSON names are camelCase (HostConfig.UseCamelCase sets this in a service).
        TextCase = TextCase.CamelCase,
        // DateTime.ToString("o"): seven fractional digits, no suffix for an unzoned value (2 Types).
        DateHandler = DateHandler.ISO8601,
        // Null members are left out (the default, stated): the spec's strings, arrays and objects may be absent.
        IncludeNullValues = false,
        IncludeNullValuesInDictionaries = false,
        // Value types are always written, defaults included (the default, stated).
        ExcludeDefaultValues = false,
        // The spec's datetimes carry no zone. Without this ServiceStack reads an unzoned value as Local
        // and writes it back with the machine's offset (platform.json records the probe).
        SkipDateTimeConversion = true,
    };

    /// <summary>The data the goldens were written from, nothing omitted: nulls written, null
    /// dictionary values kept. Only a carrier for the TypeScript side, never a wire under test.</summary>
    public static Config CarrierConfig()
    {
        var c = SpecConfig();
        c.IncludeNullValues = true;
        c.IncludeNullValuesInDictionaries = true;
        return c;
    }

    public static string Json<T>(T value, Config config)
    {
        using var scope = JsConfig.With(config);
        return JsonSerializer.SerializeToString(value);
    }

    public static T FromJson<T>(string json)
    {
        using var scope = JsConfig.With(SpecConfig());
        return JsonSerializer.DeserializeFromString<T>(json);
    }

    /// <summary>The SOAP 1.1 envelope ServiceStack's /soap11 answers: a WCF Message whose body is
    /// the record written by DataContractSerializer. UTF-8, no byte-order mark, no declaration.</summary>
    public static string SoapEnvelope<T>(T record)
    {
        using var message = Message.CreateMessage(MessageVersion.Soap11, action: null, record, new DataContractSerializer(typeof(T)));
        var buffer = new MemoryStream();
        using (var writer = XmlDictionaryWriter.CreateTextWriter(buffer, new UTF8Encoding(false), ownsStream: false))
        {
            message.WriteMessage(writer);
        }
        return Encoding.UTF8.GetString(buffer.ToArray());
    }

    /// <summary>Reads a SOAP 1.1 envelope's body with DataContractSerializer, as a WCF client does.</summary>
    public static T FromSoapEnvelope<T>(string xml)
    {
        using var reader = XmlDictionaryReader.CreateTextReader(Encoding.UTF8.GetBytes(xml), XmlDictionaryReaderQuotas.Max);
        using var message = Message.CreateMessage(reader, int.MaxValue, MessageVersion.Soap11);
        using var body = message.GetReaderAtBodyContents();
        return (T)new DataContractSerializer(typeof(T)).ReadObject(body)!;
    }
}
