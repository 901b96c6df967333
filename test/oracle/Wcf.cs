// A WCF client for ImpersonateLogoutRequest (4.2): BasicHttpBinding, SOAP 1.1, SOAPAction
// "ImpersonateLogoutRequest", the request element in {service_request_namespace}, the answer read
// by DataContractSerializer as UserDetailsResponse in {service_login_namespace}.
using System.ServiceModel;
using System.ServiceModel.Channels;
using SupportState.Contract;

namespace Oracle;

[MessageContract(IsWrapped = true, WrapperName = "ImpersonateLogoutRequest", WrapperNamespace = ContractNamespaces.Request)]
public sealed class ImpersonateLogoutMessage;

[MessageContract(IsWrapped = false)]
public sealed class UserDetailsMessage
{
    [MessageBodyMember(Name = "UserDetailsResponse", Namespace = ContractNamespaces.Login)]
    public UserDetailsResponse? Record;
}

[ServiceContract(Namespace = ContractNamespaces.Request)]
public interface IImpersonationService
{
    [OperationContract(Action = "ImpersonateLogoutRequest", ReplyAction = "*")]
    UserDetailsMessage ImpersonateLogout(ImpersonateLogoutMessage request);
}

static class Wcf
{
    /// <summary>The stock binding: what a .NET client generated from the service's metadata uses.</summary>
    public static Binding Stock() => new BasicHttpBinding(BasicHttpSecurityMode.None) { MaxReceivedMessageSize = int.MaxValue };

    /// <summary>The stock binding with one change: its SOAP 1.1 text encoder also accepts a response
    /// labelled application/xml, the Content-Type interface.md 4.2 gives (the stock one refuses it).</summary>
    public static Binding AcceptingApplicationXml()
    {
        var elements = Stock().CreateBindingElements();
        var encoder = elements.Find<MessageEncodingBindingElement>()!;
        elements[elements.IndexOf(encoder)] = new ApplicationXmlEncodingElement(encoder);
        return new CustomBinding(elements);
    }

    public static UserDetailsResponse? Call(Binding binding, string url)
    {
        var factory = new ChannelFactory<IImpersonationService>(binding, new EndpointAddress(url));
        try
        {
            return factory.CreateChannel().ImpersonateLogout(new ImpersonateLogoutMessage()).Record;
        }
        finally
        {
            factory.Abort();
        }
    }
}

/// <summary>Wraps a SOAP 1.1 text encoder; answers labelled application/xml are read as text/xml.</summary>
sealed class ApplicationXmlEncodingElement(MessageEncodingBindingElement inner) : MessageEncodingBindingElement
{
    public override MessageVersion MessageVersion { get => inner.MessageVersion; set => inner.MessageVersion = value; }
    public override MessageEncoderFactory CreateMessageEncoderFactory() => new Factory(inner.CreateMessageEncoderFactory());
    public override BindingElement Clone() => new ApplicationXmlEncodingElement((MessageEncodingBindingElement)inner.Clone());
    public override T? GetProperty<T>(BindingContext context) where T : class => inner.GetProperty<T>(context);

    public override IChannelFactory<TChannel> BuildChannelFactory<TChannel>(BindingContext context)
    {
        context.BindingParameters.Add(this);
        return context.BuildInnerChannelFactory<TChannel>();
    }

    private sealed class Factory(MessageEncoderFactory inner) : MessageEncoderFactory
    {
        public override MessageEncoder Encoder { get; } = new Encoder(inner.Encoder);
        public override MessageVersion MessageVersion => inner.MessageVersion;
    }

    private sealed class Encoder(MessageEncoder inner) : MessageEncoder
    {
        public override string ContentType => inner.ContentType;
        public override string MediaType => inner.MediaType;
        public override MessageVersion MessageVersion => inner.MessageVersion;

        public override bool IsContentTypeSupported(string contentType) =>
            inner.IsContentTypeSupported(contentType) || contentType.Split(';')[0].Trim().Equals("application/xml", StringComparison.OrdinalIgnoreCase);

        public override Message ReadMessage(ArraySegment<byte> buffer, BufferManager bufferManager, string? contentType) =>
            inner.ReadMessage(buffer, bufferManager, inner.ContentType);

        public override Message ReadMessage(Stream stream, int maxSizeOfHeaders, string? contentType) =>
            inner.ReadMessage(stream, maxSizeOfHeaders, inner.ContentType);

        public override ArraySegment<byte> WriteMessage(Message message, int maxMessageSize, BufferManager bufferManager, int messageOffset) =>
            inner.WriteMessage(message, maxMessageSize, bufferManager, messageOffset);

        public override void WriteMessage(Message message, Stream stream) => inner.WriteMessage(message, stream);
    }
}
